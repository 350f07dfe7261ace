"""Random mutations of YAML deck text, for deck_fuzz.py.

Decks are handled as bytes decoded as Latin-1 (one character per byte, every byte
allowed), so byte flips and truncations can make any byte sequence, invalid UTF-8 included,
and the other mutations edit the same text (the value "'\u00c3\u00a9'" is the UTF-8 of an
accented letter; "'\u00e9'" alone is a byte that is not UTF-8). Values and keys are found
with regular expressions rather than a YAML parser: a mutant need not be valid YAML, and
the test must not depend on packages beyond Python's standard library.
"""
import re

# Values that break assumptions: signs, zero, limits of int64 and double, non-finite
# numbers, other YAML types, odd strings and paths.
NASTY_VALUES = [
    "-1", "0", "-0", "0.0", "1e-308", "4.9e-324", "1e308", "-1e308", "1e400", "-1e400",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "2147483648",
    "4294967296", ".nan", ".NaN", "nan", ".inf", "-.inf", "inf", "0x10", "0o17", "1_000", "+5",
    "1e3", "3.", ".5", "0.2500001", "~", "null", "", "''", '""', "true", "no", "abc",
    "'8'", '"1e3"', "[]", "[1]", "[1, 2]", "[1, 2, 3]", "[0, 0]", "[-1, 2]", "[.nan, 1]",
    "[[1]]", "{}", "{a: 1}", "{generate: {count: 0}}", "{geomspace: [1, 1, 1]}",
    "{geomspace: [5, 1, 2]}", "{geomspace: [1, 10, 0.5]}", "{geomspace: [1e-308, 1e308, 5]}",
    "!!str 5", "!!int 5", "!!float .inf", "!!binary AA==", "*undefined", "&anchor 4", "|\n  4",
    ">-\n  4", "/", "..", "/nonexistent/deck.h5", "a b c", "'\u00e9'", "'\u00c3\u00a9'", '"\\u0000"', "x" * 4096,
    "float16", "float64", "mixed", "kokkos-kernels", "gaussian", "file", "jagged",
    "brute", "index",
]
# Values that keep a run small wherever they are accepted: most mutants that survive
# validation then also run (the work limit in deck_fuzz.py stops the rest).
SMALL_VALUES = ["1", "2", "3", "4", "7", "8", "16", "0.1", "0.25", "0.5", "1.0", "5", "100"]
# Every key the deck reader knows, and near misses: renaming one key to another makes
# type swaps, repeats and unknown keys.
KNOWN_KEYS = [
    "output", "file", "overwrite", "progress_seconds", "compression", "diffusion", "nx", "ny", "steps", "c",
    "dt", "precision", "laplacian", "output_every", "checkpoint_every", "checkpoint_file",
    "ranks", "start", "kind", "seed", "exponent", "radius", "percentile", "centre", "width",
    "amplitude", "dataset", "knn", "k", "observations", "references", "batch_size",
    "tile_size", "method", "generate", "count", "csv", "latitude", "longitude", "hdf5", "ridge",
    "matrix", "rows", "columns", "density", "matrix_market", "group", "rhs", "mean", "std",
    "lambdas", "geomspace", "solver", "atol", "btol", "conlim", "max_iterations", "kernels",
    "keep_solutions", "refine_corner", "stpes", "Nx", "knn ", "'k'", "<<", "?", "-", "",
]
# Bytes that mean something to YAML, then a few that mean nothing to anyone.
SPECIAL_BYTES = b":-[]{},#&*!|>'\"%@`?\t\n \r\x00\x7f\x80\xff\xef\xbb\xbf"

# A plain scalar value: after "key: ", "[" or ", ", up to the next separator. Keys inside
# flow mappings are not matched (a key is followed by ':', which the lookahead refuses).
VALUE = re.compile(r"(?:(?<=: )|(?<=\[)|(?<=, ))([^\s,{}\[\]#:]+(?:[ \t]+[^\s,{}\[\]#:]+)*)"
                   r"(?=[ \t]*(?:[,}\]#\n]|$))")
KEY = re.compile(r"([A-Za-z_][A-Za-z_0-9]*)(?=:(?:[ \t\n]|$))")
# A flow-style pair, its value a scalar or one level of brackets, with a comma after it.
FLOW_PAIR = re.compile(r"[A-Za-z_]+:[ \t]*(?:\{[^{}]*\}|\[[^\[\]]*\]|[^,{}\[\]\n]*)[ \t]*,?[ \t]*")


def _spans(pattern, text):
    return [m.span(1) for m in pattern.finditer(text)]


def _replace(text, span, new):
    return text[:span[0]] + new + text[span[1]:]


def set_value(rng, text):
    spans = _spans(VALUE, text)
    if not spans:
        return None
    pool = NASTY_VALUES if rng.random() < 0.6 else SMALL_VALUES
    return _replace(text, rng.choice(spans), rng.choice(pool))


def swap_values(rng, text):
    spans = _spans(VALUE, text)
    if len(spans) < 2:
        return None
    a, b = sorted(rng.sample(spans, 2))
    return text[:a[0]] + text[b[0]:b[1]] + text[a[1]:b[0]] + text[a[0]:a[1]] + text[b[1]:]


def retype_value(rng, text):
    spans = _spans(VALUE, text)
    if not spans:
        return None
    span = rng.choice(spans)
    v = text[span[0]:span[1]]
    forms = ["[%s]", "{%s: %s}", "'%s'", '"%s"', "%s %s", "!!str %s", "[%s, %s]", "{x: %s}"]
    form = rng.choice(forms)
    return _replace(text, span, form % ((v,) * form.count("%s")))


def delete_key(rng, text):
    lines = text.split("\n")
    block = [i for i, line in enumerate(lines) if KEY.match(line.lstrip())]
    pairs = [m.span() for m in FLOW_PAIR.finditer(text)]
    if pairs and (not block or rng.random() < 0.5):
        return _replace(text, rng.choice(pairs), "")
    if not block:
        return None
    del lines[rng.choice(block)]
    return "\n".join(lines)


def rename_key(rng, text):
    spans = _spans(KEY, text)
    if not spans:
        return None
    return _replace(text, rng.choice(spans), rng.choice(KNOWN_KEYS))


def alias_value(rng, text):
    spans = _spans(VALUE, text)
    if len(spans) < 2:
        return None
    a, b = sorted(rng.sample(spans, 2))
    anchored = "&a " + text[a[0]:a[1]]
    return text[:a[0]] + anchored + text[a[1]:b[0]] + "*a" + text[b[1]:]


def truncate(rng, text):
    return text[:rng.randrange(len(text) + 1)]


def flip_byte(rng, text):
    if not text:
        return None
    at = rng.randrange(len(text))
    byte = rng.choice(SPECIAL_BYTES) if rng.random() < 0.7 else rng.randrange(256)
    return text[:at] + chr(byte) + text[at + 1:]


def duplicate_line(rng, text):
    lines = text.split("\n")
    line = rng.choice(lines)
    lines.insert(rng.randrange(len(lines) + 1), line)
    return "\n".join(lines)


def document_marker(rng, text):
    lines = text.split("\n")
    lines.insert(rng.randrange(len(lines) + 1), rng.choice(["---", "...", "--- |", "%YAML 1.2"]))
    return "\n".join(lines)


def indent(rng, text):
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    if rng.random() < 0.5:
        lines[i] = " " * rng.randint(1, 3) + lines[i]
    else:
        lines[i] = lines[i][rng.randint(1, 3):] if lines[i].startswith(" ") else "\t" + lines[i]
    return "\n".join(lines)


# (mutation, weight): value edits most often, since they reach the validators deepest.
MUTATIONS = [
    (set_value, 6), (swap_values, 3), (retype_value, 2), (delete_key, 3), (rename_key, 3),
    (alias_value, 1), (truncate, 2), (flip_byte, 3), (duplicate_line, 2), (document_marker, 1),
    (indent, 1),
]


def mutate(rng, text):
    """Applies one to three random mutations; returns the new text and their names."""
    names = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        functions, weights = zip(*MUTATIONS)
        mutation = rng.choices(functions, weights)[0]
        mutated = mutation(rng, text)
        if mutated is not None:
            text = mutated
            names.append(mutation.__name__)
    return text, names
