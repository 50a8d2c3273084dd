"""The notation: parser and printer for the paper notation, its ASCII form, Lift's DSL
subset, and program files with type signatures."""

from .parser import parse, parse_ranges, parse_type
from .printer import to_text
from .program import Program, load, parse_program

__all__ = ["parse", "parse_type", "parse_ranges", "to_text", "Program", "parse_program", "load"]
