"""The notation: parser and printer for the paper notation, its ASCII form, Lift's DSL
subset, and program files with type signatures."""

from .parser import parse_ranges, parse_type
from .program import Program
from .reading import load, parse, parse_program, to_text

__all__ = ["parse", "parse_type", "parse_ranges", "to_text", "Program", "parse_program", "load"]
