#!/usr/bin/env python3
"""The mutant list of tests/mutants/mutants.tsv, read, checked and applied for run.sh.

A mutant is one line of six tab-separated fields: id, file (relative to the tree's root),
the original text (exact, found exactly once in the file), its replacement (may be empty),
the ctest regular expression of the tests that must catch it, and why it matters. Blank
lines and lines starting with '#' are comments. The texts are taken literally: no escapes.

  mutate.py check LIST ROOT [ID...]   every mutant (or those named) still applies: exit 1 if not
  mutate.py list LIST [ID...]         id, file and tests of each mutant, tab-separated
  mutate.py apply LIST ROOT ID        writes the mutant into ROOT/file
"""
import os
import re
import sys

FIELDS = ("id", "file", "original", "replacement", "tests", "why")


def read_list(path):
    mutants, problems, seen = [], [], set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            where = f"{path}:{number}"
            if len(parts) != len(FIELDS):
                problems.append(f"{where}: expected {len(FIELDS)} tab-separated fields, got {len(parts)}")
                continue
            m = dict(zip(FIELDS, parts))
            m["line"] = number
            if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", m["id"]):
                problems.append(f"{where}: id '{m['id']}' is not lower-case letters, digits, '.', '_' or '-'")
            elif m["id"] in seen:
                problems.append(f"{where}: id '{m['id']}' appears twice")
            seen.add(m["id"])
            if not m["original"]:
                problems.append(f"{where}: {m['id']}: the original text is empty")
            elif m["original"] == m["replacement"]:
                problems.append(f"{where}: {m['id']}: the replacement is the original")
            if not m["tests"]:
                problems.append(f"{where}: {m['id']}: no tests named")
            else:
                try:
                    re.compile(m["tests"])
                except re.error as e:
                    problems.append(f"{where}: {m['id']}: tests '{m['tests']}' is not a regular expression ({e})")
            mutants.append(m)
    return mutants, problems


def select(mutants, ids):
    if not ids:
        return mutants, []
    known = {m["id"]: m for m in mutants}
    missing = [i for i in ids if i not in known]
    return [known[i] for i in ids if i in known], [f"no mutant '{i}' in the list" for i in missing]


def check(mutants, root):
    problems = []
    for m in mutants:
        path = os.path.join(root, m["file"])
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            problems.append(f"line {m['line']}: {m['id']}: {m['file']}: {e.strerror}")
            continue
        n = text.count(m["original"])
        if n != 1:
            problems.append(f"line {m['line']}: {m['id']}: {m['file']}: the original text is found {n} times, "
                            f"not once: {m['original']!r}")
    return problems


def main(argv):
    if len(argv) < 3 or argv[1] not in ("check", "list", "apply"):
        sys.stderr.write(__doc__)
        return 2
    command, list_path = argv[1], argv[2]
    mutants, problems = read_list(list_path)
    if command == "list":
        chosen, missing = select(mutants, argv[3:])
        problems += missing
    else:
        if len(argv) < 4:
            sys.stderr.write(__doc__)
            return 2
        root = argv[3]
        ids = argv[4:]
        if command == "apply" and len(ids) != 1:
            sys.stderr.write("mutate.py apply LIST ROOT ID: one mutant at a time\n")
            return 2
        chosen, missing = select(mutants, ids)
        problems += missing + check(chosen, root)
    if problems:
        for p in problems:
            sys.stderr.write(f"mutate.py: {p}\n")
        return 1
    if command == "list":
        for m in chosen:
            print("\t".join((m["id"], m["file"], m["tests"])))
    elif command == "apply":
        m = chosen[0]
        path = os.path.join(root, m["file"])
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(m["original"], m["replacement"], 1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
