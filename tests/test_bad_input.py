"""Bad input of every kind is a located ``WorkbenchError`` (SPEC 12): numbers and sizes no
machine holds, names that cannot be C identifiers, files that are not UTF-8 text, saved
derivations and search logs that are corrupt, inputs that are not arrays of numbers, sizes
that contradict the arrays, and arguments out of range. On the command line each is one
message on stderr and exit status 1, never a traceback."""

import json
import os
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from workbench import (
    Derivation,
    DerivationError,
    EvaluationError,
    ParseError,
    SizeError,
    TypeCheckError,
    WorkbenchError,
    apply,
    evaluate,
    load,
    parse,
    parse_program,
    parse_type,
    run,
    typecheck,
)
from workbench.cli import main
from workbench.errors import ArgumentError
from workbench.expr import Lit, Prim
from workbench.inputs import random_inputs
from workbench.programs import LIBRARY, library
from workbench.search import Log, LogError, read
from workbench.sizes import Size

SAVED = Path(__file__).parent.parent / "workbench" / "derivations"
ASUM = library("blas")["asum"]
XS = np.linspace(-1, 1, 64, dtype=np.float32)


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_user_error(code, out, err):
    assert code == 1
    assert out == ""
    assert "Traceback" not in err and len(err.strip().splitlines()) >= 1


# --- text: numbers, sizes, names ----------------------------------------------------------------

@pytest.mark.parametrize("text,column", [
    ("map (*" + "9" * 5000 + ")", 7),     # past Python's 4,300-digit int conversion
    ("map (*99999999999999999999)", 7),   # past 64 bits
    ("map (*1e999)", 7),                   # a float that would be infinite
    ("split 𝔽N", 7),                        # a size name that is no C identifier
    ("split (2^99999999)", 9),             # a size no machine holds
    ("split (N^999)", 9),
    ("split (N/0)", 9),
])
def test_numbers_and_sizes_out_of_reach_are_parse_errors_where_written(text, column):
    with pytest.raises(ParseError) as info:
        parse(text)
    assert (info.value.line, info.value.column) == (1, column)


@pytest.mark.parametrize("literal", ["1.7976931348623157e308", "5e-324", "1e-999", "1e20",
                                     "9223372036854775807", "-9223372036854775807", "0.1"])
def test_extreme_literals_print_back_to_text_that_parses_equal(literal):
    e = parse(f"λx. x * {literal}")
    assert parse(str(e)) == e


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), 2 ** 64])
def test_a_literal_the_notation_cannot_write_is_refused(value):
    from workbench.expr import Lit

    with pytest.raises(WorkbenchError):
        Lit(value)


def test_a_huge_literal_is_shown_shortened_in_the_error():
    with pytest.raises(ParseError) as info:
        parse("9" * 5000)
    assert len(str(info.value)) < 600


@pytest.mark.parametrize("text", ["[float]_𝔽N", "[float]_{2^9999999999}",
                                  "[float]_" + "9" * 5000, "[float]_{(A+B+C+D+E)^40}"])
def test_types_with_sizes_out_of_reach_are_parse_errors(text):
    with pytest.raises(ParseError):
        parse_type(text)


def test_very_deep_nesting_in_a_program_file_is_a_parse_error():
    with pytest.raises(ParseError):
        parse_program("f = " + "(" * 20000 + "id" + ")" * 20000 + "\n")
    with pytest.raises(ParseError):
        parse_program("f : " + "[" * 20000 + "float" + "]_N" * 20000 + "\nf = id\n")


def test_non_ascii_digits_are_not_numbers():
    with pytest.raises(ParseError) as info:
        parse("map (*²)")
    assert info.value.column == 7


# --- static arguments: component indices, counts, widths, size names --------------------------

PAIRS = 'fun(ArrayTypeWSWC(TupleType(Float, Float), SizeVar("N")), in => {} $ in)'
FLOATS = 'fun(ArrayTypeWSWC(Float, SizeVar("N")), in => {} $ in)'


def refused_at(text: str, at: str, read=parse) -> ParseError:
    """The ParseError reading ``text`` raises; it points at the first ``at`` in the text."""
    with pytest.raises(ParseError) as info:
        read(text)
    assert (info.value.line, info.value.column) == (1, text.index(at) + 1), str(info.value)
    return info.value


@pytest.mark.parametrize("body,at", [
    ("Map(fun(p => Get(p, -1)))", "-1"),
    ("Map(Get(-1))", "-1"),
    ("Map(fun(p => Get(p, 1.5f)))", "1.5f"),
])
def test_a_negative_component_index_in_lift_is_refused_where_written(body, at):
    err = refused_at(PAIRS.format(body), at)
    assert "component index" in err.reason


@pytest.mark.parametrize("body,at,what", [
    ("Iterate(-1)(MapSeq(id))", "-1", "iterations"),
    ("Iterate(2 - 3)(MapSeq(id))", "- 3", "iterations"),
    ("Pad(-1, 2, Pad.Boundary.Clamp)", "-1", "left width"),
    ("Pad(1, -2, Pad.Boundary.Wrap)", "-2", "right width"),
    ("PadConstant(1, -2, 0.0f)", "-2", "size"),
    ("Split(-4)", "-4", "size"),
    ("Slide(3, -1)", "-1", "size"),
    ("Map(Join()) o Slide2D(-3, 1) o Split(8)", "-3", "Slide2D"),
    ("Gather(ReorderWithStride(-2))", "-2", "stride"),
    ("MapGlb(3)(id)", "3", "dimensions"),
])
def test_negative_counts_and_widths_in_lift_are_refused_where_written(body, at, what):
    err = refused_at(FLOATS.format(body), at)
    assert what in err.reason


@pytest.mark.parametrize("name", ["N+", "1N", "N M", "𝔽N", "N-1"])  # "" is a size of its own
def test_a_size_variable_lift_cannot_name_is_refused_naming_it(name):
    text = f'fun(ArrayTypeWSWC(Float, SizeVar("{name}")), in => MapSeq(id) $ in)'
    err = refused_at(text, f'"{name}"')
    assert repr(name) in err.reason


@pytest.mark.parametrize("text,at", [
    ('fun(ArrayTypeWSWC(Float, -3), in => MapSeq(id) $ in)', "-3"),
    ('fun(ArrayTypeWSWC(Float, SizeVar("N") - 2 * SizeVar("N")), in => MapSeq(id) $ in)',
     "- 2 *"),
    ('fun(ArrayTypeWSWC(Float, SizeVar("N")), in => Split(SizeVar("N") /^ 0) $ in)', "/^"),
    ('fun(ArrayTypeWSWC(Float, SizeVar("N")), in => Split(4 / 0) $ in)', "/ 0"),
    ('fun(ArrayTypeWSWC(Float, SizeVar("N")), in => MapSeq(fun(x => add().apply(x, x))) $ in)',
     "()"),
])
def test_lift_sizes_out_of_reach_are_refused_where_written(text, at):
    refused_at(text, at)


@pytest.mark.parametrize("body", ["{ x._2 = -x._0; return x; }", "{ return {x._0, x._1}._5; }",
                                  "{ x._1 = x._99999999999999999999; return x; }"])
def test_a_c_body_reading_a_field_a_tuple_lacks_is_refused_naming_the_field(body):
    text = (f'val neg = UserFun("neg", "x", "{body}", TupleType(Float, Float), '
            f'TupleType(Float, Float))')
    with pytest.raises(ParseError, match=r"field _\d+"):
        parse_program(text)


@pytest.mark.parametrize("text,at", [
    ("map (get -1)", "-"),
    ("map (λp. get -2 p)", "-"),
    ("map (get (-1))", "-"),
    ("iterate -1 (map id)", "-"),
    ("iterate (0-1) (map id)", "-"),
    ("iterate (1/2) (map id)", "/"),
    ("pad (0-1) 2 0", "-"),
    ("padClamp 1 (3-5)", "-"),
    ("pad (0-N) 1 0", "-"),
    ("gatherOffsets (0-1, 0)", "-"),
    ("split -4", "-"),
])
def test_negative_indices_counts_and_widths_in_the_notation_are_refused_where_written(text,
                                                                                      at):
    err = refused_at(text, at)
    assert "natural number" in err.reason or "count from 0" in err.reason


@pytest.mark.parametrize("text,at", [
    ("[float]_N+", "+"), ("[float]_N+1", "+"), ("[float]_4*N", "*"), ("[float]_", None),
    ("[float]_-3", "-"), ("[float]_{0-3}", "-"), ("[float]_{1/2}", "/"), ("[float]_{0-N}", "-"),
    ("<float>_{0-4}", "-"), ("[float]_{N+}", "}"), ("[float]_{}", "}"),
])
def test_malformed_sizes_in_types_are_parse_errors_where_written(text, at):
    with pytest.raises(ParseError) as info:
        parse_type(text)
    column = len(text) + 1 if at is None else text.index(at) + 1
    assert (info.value.line, info.value.column) == (1, column), str(info.value)


def test_a_negative_component_index_built_in_python_is_a_type_error_naming_the_node():
    from workbench.expr import Prim

    with pytest.raises(TypeCheckError) as info:
        typecheck(Prim("map", (Prim("get", (-1,)),)), "[(float, float)]_N")
    assert info.value.path == (0,) and "get -1" in str(info.value)
    with pytest.raises(TypeCheckError, match="only 2 components"):
        typecheck(Prim("get", (2,)), "(float, float)")


@pytest.mark.parametrize("args", [
    ("iterate", (Size.const(-1), Prim("map", (Prim("id"),)))),
    ("pad", (Size.const(-1), Size.const(2), Lit(0))),
    ("padClamp", (Size.const(1), Size.const(-2))),
    ("padWrap", (-Size.var("N"), Size.const(0))),
    ("split", (Size.const(4), Size.const(1))),  # one static argument too many
])
def test_static_arguments_out_of_range_built_in_python_are_refused_by_the_type_checker(args):
    with pytest.raises(TypeCheckError):
        typecheck(Prim(*args), "[float]_N")


def test_a_width_negative_only_at_the_given_sizes_is_a_size_error():
    e = parse("pad (N-M) 0 0")
    assert typecheck(e, "[float]_8") == parse_type("[float]_{N-M+8}")
    with pytest.raises(SizeError, match="-1 is negative"):
        typecheck(e, "[float]_8", sizes={"N": 2, "M": 3})


def test_replicate_0_is_refused_as_take_0_is():
    # arrays hold at least one element: an empty one later broke opMap's chunking
    with pytest.raises(SizeError, match="replicate 0"):
        typecheck(parse("opMap 1 (map (λx. x)) ∘ replicate 0"), "float")


@pytest.mark.parametrize("text", ["iterate 0 (map (λx. x * 2))", "pad 0 0 0", "padClamp 0 0",
                                  "iterate 0 (join ∘ map (reduce (+) 0) ∘ split 2)"])
def test_zero_iterations_and_zero_widths_are_the_identity(text):
    assert evaluate(parse(text), XS).tolist() == XS.tolist()


# --- files that are not UTF-8 text --------------------------------------------------------------

PROGRAM = "asum : [float]_N -> [float]_1\nasum = reduce (+) 0 ∘ map abs\n"


@pytest.mark.parametrize("data,line", [
    (PROGRAM.encode("utf-16"), 1),                      # UTF-16 with its byte-order mark
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 1),          # binary
    (PROGRAM.encode("utf-8")[:-8] + "∘".encode()[:2], 2),  # cut inside a character
    (PROGRAM.encode("latin-1", "replace") + "é = id\n".encode("latin-1"), 3),
])
def test_a_program_file_that_is_not_utf8_is_a_located_error(tmp_path, data, line):
    path = tmp_path / "bad.lift"
    path.write_bytes(data)
    with pytest.raises(ParseError) as info:
        load(path)
    assert info.value.line == line and info.value.path == str(path)


def test_a_program_file_with_a_utf8_byte_order_mark_loads(tmp_path):
    path = tmp_path / "bom.lift"
    path.write_bytes(b"\xef\xbb\xbf" + PROGRAM.encode())
    assert list(load(path)) == ["asum"]


def test_the_cli_reports_a_binary_program_file_in_one_message(tmp_path, capsys):
    path = tmp_path / "bin.lift"
    path.write_bytes(bytes(range(256)))
    assert_user_error(*cli(capsys, "check", f"@{path}"))


def test_a_program_file_that_cannot_be_read_names_it(tmp_path):
    with pytest.raises(WorkbenchError):
        load(tmp_path)  # a directory


# --- saved derivations -------------------------------------------------------------------------

def saved(name="icfp_fig10_asum"):
    return json.loads((SAVED / f"{name}.json").read_text(encoding="utf-8"))


def write(tmp_path, doc) -> Path:
    path = tmp_path / "d.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_a_derivation_saved_in_another_encoding_is_a_located_error(tmp_path, encoding):
    path = tmp_path / "d.json"
    path.write_bytes(json.dumps(saved()).encode(encoding))
    with pytest.raises(DerivationError) as info:
        Derivation.load(path)
    assert (info.value.line, info.value.column) == (1, 1)


@pytest.mark.parametrize("cut", [1, 100, 1000])
def test_a_derivation_cut_short_as_bytes_is_a_located_error(tmp_path, cut):
    data = (SAVED / "blackscholes.json").read_bytes()
    path = tmp_path / "cut.json"
    path.write_bytes(data[:cut])
    with pytest.raises(DerivationError) as info:
        Derivation.load(path)
    assert info.value.line is not None


def test_a_binary_file_is_not_a_derivation(tmp_path):
    path = tmp_path / "bin.json"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(DerivationError):
        Derivation.load(path)


@pytest.mark.parametrize("version", [99, 0, "1", None, [1], 10 ** 50])
def test_an_unknown_format_version_is_refused_naming_the_version(tmp_path, version):
    doc = saved()
    doc["version"] = version
    with pytest.raises(DerivationError) as info:
        Derivation.load(write(tmp_path, doc))
    assert info.value.entry == "version"


def test_the_cli_refuses_an_unknown_version_in_one_message(tmp_path, capsys):
    doc = saved()
    doc["version"] = 99
    assert_user_error(*cli(capsys, "derive", str(write(tmp_path, doc))))


@pytest.mark.parametrize("value", ["9" * 5000, "1" + "0" * 30, "abc", "2.5", "", "-4", "𝔽N"])
def test_a_step_parameter_out_of_reach_is_refused_naming_the_step(tmp_path, value):
    doc = saved()
    doc["steps"][0]["params"]["n"] = value
    with pytest.raises(DerivationError) as info:
        Derivation.load(write(tmp_path, doc))
    assert (info.value.entry, info.value.step) == ("steps", 1)


def test_a_5000_digit_json_number_is_refused(tmp_path):
    text = json.dumps(saved()).replace('"n": "128"', '"n": ' + "9" * 5000, 1)
    path = tmp_path / "big.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DerivationError):
        Derivation.load(path)


def test_a_bad_branch_is_refused_naming_it(tmp_path):
    doc = saved()
    doc["branches"] = ["not a list of steps"]
    with pytest.raises(DerivationError) as info:
        Derivation.load(write(tmp_path, doc))
    assert (info.value.entry, info.value.branch) == ("branches", 0)


# --- search logs -------------------------------------------------------------------------------

RECORD = {"key": "map abs | N=64 | default", "expression": "map abs", "status": "ok",
          "correct": True, "kernel_ms": 0.01}


def records(n):
    return "".join(json.dumps({**RECORD, "key": f"k{i}"}) + "\n" for i in range(n))


@pytest.mark.parametrize("garbage", ["not json", "\x00\x00\x00\x00", "{\"no key\": 1}", "[1, 2]"])
def test_a_garbage_last_line_ending_in_a_newline_is_tolerated_and_reported(tmp_path, garbage):
    path = tmp_path / "log.jsonl"
    path.write_text(records(3) + garbage + "\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = read(path)
    assert [r["key"] for r in found] == ["k0", "k1", "k2"]  # nothing lost
    assert caught


def test_a_resumed_log_drops_its_garbage_last_line_before_appending(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(records(2) + "garbage\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log = Log(path)
    log.append({**RECORD, "key": "k2"})
    assert [r["key"] for r in read(path)] == ["k0", "k1", "k2"]


def test_a_last_record_without_its_newline_is_kept_when_appending(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(records(2).rstrip("\n"), encoding="utf-8")
    Log(path).append({**RECORD, "key": "k2"})
    assert [r["key"] for r in read(path)] == ["k0", "k1", "k2"]


def test_a_garbage_line_in_the_middle_is_an_error_naming_it(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(records(1) + "garbage\n" + records(2), encoding="utf-8")
    with pytest.raises(LogError) as info:
        read(path)
    assert info.value.line == 2


def test_a_file_with_no_record_is_not_resumed_as_a_log(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(LogError):
            Log(path)
    assert path.read_text(encoding="utf-8") == "my notes\n"  # untouched


@pytest.mark.parametrize("data,line", [
    (records(2).encode("utf-16"), 1),
    (records(2).encode() + b"\xff\xfe\n", 3),
    (bytes(range(256)), 2),  # byte 0x80 comes after the newline 0x0a
])
def test_a_log_that_is_not_utf8_is_a_located_error(tmp_path, data, line):
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    with pytest.raises(LogError) as info:
        read(path)
    assert info.value.line == line


def test_a_corrupt_compressed_log_is_an_error(tmp_path):
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(LogError):
        read(path)


# a path that is no log file: refused when read, when resumed and on the command line
def _fifo(tmp_path):
    path = tmp_path / "fifo.jsonl"
    os.mkfifo(path)

    def unblock():  # were it read, a writer ends each read: the test fails, never hangs
        time.sleep(10)
        for _ in range(240):
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # no reader now (or the folder is gone)
                pass
            time.sleep(0.25)

    threading.Thread(target=unblock, daemon=True).start()
    return path


def _loop(tmp_path):
    path = tmp_path / "loop.jsonl"
    path.symlink_to(path)
    return path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes and links of POSIX")
@pytest.mark.parametrize("make", [_fifo, _loop, lambda tmp_path: tmp_path])
def test_a_log_that_is_a_pipe_a_link_loop_or_a_folder_is_refused(tmp_path, make):
    path = make(tmp_path)
    with pytest.raises(LogError) as info:
        read(path)
    assert str(path) in str(info.value)
    with pytest.raises(LogError):
        Log(path)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_log_that_cannot_be_written_is_a_log_error(capsys):
    with pytest.raises(LogError) as info:
        Log("/dev/full").append(RECORD)
    assert "/dev/full" in str(info.value)
    code, out, err = cli(capsys, "search", "map abs", "--type", "[float]_64", "--budget", "1",
                         "--workers", "0", "--log", "/dev/full")
    assert_user_error(code, out, err)
    assert "/dev/full" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes of POSIX")
def test_the_cli_refuses_a_log_that_is_a_pipe_in_one_message(tmp_path, capsys):
    code, out, err = cli(capsys, "search", "map abs", "--type", "[float]_64", "--budget", "1",
                         "--workers", "0", "--log", str(_fifo(tmp_path)))
    assert_user_error(code, out, err)
    assert "pipe" in err


# --- inputs of the interpreter and of run ------------------------------------------------------

BAD_ARRAYS = [
    np.ones(64, dtype=np.complex64), np.array(["a"] * 64), np.array([object()] * 64),
    None, "text", [[1.0, 2.0], [3.0]], np.array([None] * 64),
]


@pytest.mark.parametrize("value", BAD_ARRAYS, ids=lambda v: type(v).__name__)
def test_evaluate_refuses_inputs_that_are_not_arrays_of_numbers_naming_the_input(value):
    dot = library("blas")["dot"]
    with pytest.raises(EvaluationError) as info:
        evaluate(dot, XS, value)
    assert info.value.input == 2


@pytest.mark.parametrize("value", BAD_ARRAYS, ids=lambda v: type(v).__name__)
def test_run_reports_inputs_that_are_not_arrays_of_numbers_as_invalid_input(value):
    result = run(ASUM, value, repeat=1)
    assert result.status == "invalid input" and not result.correct
    assert isinstance(result.error, EvaluationError) and result.error.input == 1


def test_an_empty_input_is_refused_before_any_launch():
    with pytest.raises(EvaluationError) as info:
        evaluate(ASUM, np.zeros(0, np.float32))
    assert info.value.input == 1
    result = run(ASUM, np.zeros(0, np.float32), repeat=1)
    assert result.status == "invalid input" and result.error.input == 1


@pytest.mark.parametrize("sizes", [{"N": -4}, {"N": 63}, {"N": 65}])
def test_sizes_that_contradict_the_arrays_are_refused_naming_the_size(sizes):
    with pytest.raises(EvaluationError) as info:
        evaluate(ASUM, XS, sizes=sizes)
    assert info.value.size == "N"


def test_sizes_that_agree_with_the_arrays_are_accepted():
    assert evaluate(ASUM, XS, sizes={"N": 64}) == pytest.approx(np.abs(XS).sum(), rel=1e-5)


@pytest.mark.parametrize("value", [0, -1, 2.5, "8", True])
def test_sizes_that_are_not_positive_whole_numbers_are_refused(value):
    listing = library("reductions")["listing5_13"]
    with pytest.raises(EvaluationError) as info:
        evaluate(listing, np.ones(4096, np.float32), sizes={"blockSize": value})
    assert info.value.size == "blockSize"


@pytest.mark.parametrize("arguments,name", [
    ({"repeat": 0}, "repeat"), ({"repeat": -3}, "repeat"), ({"repeat": 2.5}, "repeat"),
    ({"warmup": -1}, "warmup"), ({"time_limit_ms": 0}, "time_limit_ms"),
    ({"cutoff_ms": -1.0}, "cutoff_ms"),
])
def test_run_arguments_out_of_range_are_invalid_input_naming_them(arguments, name):
    result = run(ASUM, XS, **arguments)
    assert result.status == "invalid input" and result.error.argument == name


def test_the_cli_refuses_repeat_0_in_one_message(capsys):
    assert_user_error(*cli(capsys, "run", f"@{LIBRARY / 'blas.lift'}:asum", "--size",
                           "N=64", "--repeat", "0"))


@pytest.mark.parametrize("value", ["9" * 5000, "99999999999999999999", "0", "-4", "1e3"])
def test_the_cli_refuses_sizes_that_are_not_positive_64_bit_numbers(capsys, value):
    assert_user_error(*cli(capsys, "eval", f"@{LIBRARY / 'blas.lift'}:asum", "--size",
                           f"N={value}"))


def test_sizes_whose_inputs_exceed_the_memory_are_refused_before_allocating(capsys):
    code, out, err = cli(capsys, "eval", f"@{LIBRARY / 'blas.lift'}:asum", "--size",
                         "N=1099511627776")
    assert_user_error(code, out, err)
    assert "N=1099511627776" in err  # the size is named


def test_a_device_that_is_not_text_is_invalid_input_naming_it():
    result = run(ASUM, XS, device=5, repeat=1)
    assert result.status == "invalid input" and result.error.argument == "device"


@pytest.mark.parametrize("expected", [np.zeros(3, np.float32), np.zeros((2, 2), np.float32),
                                      (np.zeros(1, np.float32), np.zeros(1, np.float32))])
def test_an_expected_output_of_the_wrong_shape_is_invalid_input_naming_it(expected):
    result = run(ASUM, XS, expected=expected, repeat=1)
    assert result.status == "invalid input" and result.error.argument == "expected"
    assert not result.correct


def test_an_expected_output_of_the_right_shape_is_taken():
    result = run(ASUM, XS, expected=np.abs(XS).sum(dtype=np.float32).reshape(1), repeat=1)
    assert result.status == "ok" and result.correct


def test_an_int_literal_past_32_bits_is_invalid_input_naming_it():
    result = run(parse("map (λx. x + 3000000000)"), np.arange(64, dtype=np.int32), repeat=1)
    assert result.status == "invalid input" and not result.correct
    assert "3000000000" in result.message and "0.0.1" in result.message  # where it is
    # beside a float it is a float: right
    assert run(parse("map (λx. x * 3000000000)"), XS, repeat=1).correct


def test_a_masked_array_is_refused_naming_the_input():
    masked = np.ma.masked_array(XS, mask=XS < 0)
    result = run(library("blas")["dot"], XS, masked, repeat=1)
    assert result.status == "invalid input" and result.error.input == 2
    assert "masked" in result.message


@pytest.mark.parametrize("value,dtype", [(2 ** 40, np.uint64), (-(2 ** 40), np.int64),
                                         (2 ** 31, np.int64)])
def test_integers_past_int_are_refused_not_wrapped_round(value, dtype):
    result = run(parse("map (λx. x + 1)"), np.full(64, value, dtype=dtype), repeat=1)
    assert result.status == "invalid input" and result.error.input == 1
    assert str(value) in result.message


def test_integers_within_int_given_as_64_bits_are_taken():
    result = run(parse("map (λx. x + 1)"), np.full(64, 2 ** 31 - 2, dtype=np.int64), repeat=1)
    assert result.correct


@pytest.mark.parametrize("command", ["run", "eval", "search"])
def test_the_cli_refuses_a_negative_seed_in_one_message(capsys, command):
    code, out, err = cli(capsys, command, f"@{LIBRARY / 'blas.lift'}:asum", "--size", "N=64",
                         "--seed", "-1")
    assert_user_error(code, out, err)
    assert "--seed" in err


def test_random_inputs_refuse_a_negative_seed_naming_it():
    with pytest.raises(ArgumentError) as info:
        random_inputs([parse_type("[float]_N")], {"N": 8}, -1)
    assert info.value.argument == "seed"


def test_the_cli_refuses_a_plot_into_a_missing_folder_before_searching(tmp_path, capsys):
    code, out, err = cli(capsys, "search", "map abs", "--type", "[float]_64", "--budget", "1",
                         "--workers", "0", "--log", str(tmp_path / "log.jsonl"), "--plot",
                         str(tmp_path / "missing" / "curve.png"))
    assert_user_error(code, out, err)
    assert "missing" in err and not (tmp_path / "log.jsonl").exists()


# --- rule parameters ---------------------------------------------------------------------------

@pytest.mark.parametrize("rule,path,param", [
    ("partial-iterate", "1", "k"), ("map→mapGlobal", "2", "dim"), ("split-join", "2", "n"),
    ("reduce-partial", "0", "n"), ("vectorize", "2", "n"),
])
@pytest.mark.parametrize("value", ["N/3", "-1", "1.5", "3", "2^70", "9" * 5000,
                                   "100000000000000000", 10 ** 30, 2.5, None, True])
def test_rule_parameters_out_of_reach_are_refused(rule, path, param, value):
    fig10_1 = library("figures")["fig10_1"]
    with pytest.raises(WorkbenchError):
        apply(fig10_1, rule, path, "[float]_4096", **{param: value})


@pytest.mark.parametrize("rule", [5, None, 2.5, ["split-join"]])
def test_a_rule_that_is_no_name_or_rule_is_refused_naming_the_argument(rule):
    with pytest.raises(ArgumentError) as info:
        apply(ASUM, rule, "0", "[float]_64")
    assert info.value.argument == "rule"


# --- what a notebook shows ---------------------------------------------------------------------

def test_a_notebook_shows_an_input_mistake_without_the_workbench_frames(capsys):
    """IPython renders a workbench error as its located message (caret, suggestion, notes),
    not the 50-odd internal frames before it."""
    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    shell = interactiveshell.InteractiveShell.instance()
    try:
        result = shell.run_cell("from workbench import parse\nparse('mpa abs')")
    finally:
        interactiveshell.InteractiveShell.clear_instance()
    shown = capsys.readouterr().out
    assert isinstance(result.error_in_exec, WorkbenchError)
    assert shown.splitlines()[0].startswith(type(result.error_in_exec).__name__ + ": ")
    assert "did you mean" in shown and "map?" in shown and "^" in shown
    assert "File " not in shown and "parser.py" not in shown  # no frames


def test_the_notes_of_a_workbench_error_are_shown_with_it():
    err = WorkbenchError("the message")
    err.add_note("what to do next")
    assert err._render_traceback_() == ["WorkbenchError: the message", "what to do next"]
