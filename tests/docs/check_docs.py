#!/usr/bin/python3
"""Checks the documentation (README.md and docs/**/*.md) against the source tree:

- every relative link resolves: the file or folder exists, and a #anchor names a heading
  of the Markdown file it points to (GitHub's heading slugs);
- every page under docs/ is reachable from README.md through relative links;
- README.md holds at most 250 lines and keeps its demo and test command markers;
- every deck shown in a ```yaml block (a mapping with a diffusion:, knn: or ridge: section
  at its top level) passes `trident validate`. Each block is written as deck.yaml into a
  fresh folder that holds a link `inputs` to the repository's inputs/ folder, so a deck
  reads the example files as `inputs/NAME` (as it would when saved in the repository's
  root). A block preceded by the line `<!-- docs-check: not a deck -->` (a deliberately
  wrong deck, shown for its error message) is skipped;
- every environment override trident knows (the knob table of src/core/overrides.cpp,
  what core::override_names() returns) is documented in docs/tuning.md.

usage: check_docs.py TRIDENT SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile
import unicodedata

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
SKIP_MARK = "<!-- docs-check: not a deck -->"
STUDY = re.compile(r"^(diffusion|knn|ridge)\s*:", re.MULTILINE)


def markdown_files(src):
    files = [os.path.join(src, "README.md")]
    for root, dirs, names in os.walk(os.path.join(src, "docs")):
        dirs.sort()
        files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".md")]
    return files


def split_code(text):
    """(prose lines, code blocks): blocks as (language, first line number, body, line before)."""
    prose, blocks = [], []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            prose.append(lines[i])
            i += 1
            continue
        fence, language, start = m.group(2), m.group(3).lower(), i
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        before = lines[start - 1].strip() if start > 0 else ""
        blocks.append((language, start + 1, "\n".join(body) + "\n", before))
        prose.append("")
    return prose, blocks


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    kept = []
    for ch in text:
        if ch in " -_" or ch.isalnum() or unicodedata.category(ch).startswith("L"):
            kept.append("-" if ch == " " else ch)
    return "".join(kept)


def anchors(path):
    prose, _ = split_code(open(path, encoding="utf-8").read())
    seen, result = {}, set()
    for line in prose:
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        result.add(base if n == 0 else f"{base}-{n}")
    return result


def check_links(src, files, errors):
    """Returns the pages each page links to (for the reachability check)."""
    edges = {}
    for path in files:
        prose, _ = split_code(open(path, encoding="utf-8").read())
        edges[path] = set()
        for number, line in enumerate(prose, 1):
            line = re.sub(r"`[^`]*`", "", line)  # code spans hold no links
            for m in LINK.finditer(line):
                target = m.group(1) or m.group(2)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
                    continue  # http:, https:, mailto:
                file_part, _, anchor = target.partition("#")
                where = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                rel = os.path.relpath(path, src)
                if not where.startswith(src):
                    errors.append(f"{rel}: link '{target}' leaves the repository")
                    continue
                if not os.path.exists(where):
                    errors.append(f"{rel}: link '{target}': no such file {os.path.relpath(where, src)}")
                    continue
                if os.path.isdir(where) and os.path.exists(os.path.join(where, "README.md")):
                    where = os.path.join(where, "README.md")
                if where.endswith(".md"):
                    edges[path].add(where)
                    if anchor and anchor not in anchors(where):
                        errors.append(f"{rel}: link '{target}': {os.path.relpath(where, src)} has no heading "
                                      f"with the anchor #{anchor}")
    return edges


def check_reachable(src, files, edges, errors):
    start = os.path.join(src, "README.md")
    reached, todo = {start}, [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in reached:
                reached.add(nxt)
                todo.append(nxt)
    for path in files:
        if path not in reached:
            errors.append(f"{os.path.relpath(path, src)}: not reachable from README.md by relative links")


def check_readme(src, errors):
    text = open(os.path.join(src, "README.md"), encoding="utf-8").read()
    count = len(text.splitlines())
    if count > 250:
        errors.append(f"README.md: {count} lines, more than 250")
    for mark in ("<!-- demo-command -->", "<!-- test-command -->"):
        if mark not in text:
            errors.append(f"README.md: the marker {mark} is missing (.ci/run reads the command after it)")


def check_decks(trident, src, files, errors):
    count = 0
    for path in files:
        _, blocks = split_code(open(path, encoding="utf-8").read())
        for language, line, body, before in blocks:
            if language not in ("yaml", "yml") or not STUDY.search(body) or before == SKIP_MARK:
                continue
            count += 1
            where = f"{os.path.relpath(path, src)}:{line}"
            with tempfile.TemporaryDirectory() as work:
                os.symlink(os.path.join(src, "inputs"), os.path.join(work, "inputs"))
                deck = os.path.join(work, "deck.yaml")
                with open(deck, "w", encoding="utf-8") as f:
                    f.write(body)
                run = subprocess.run([trident, "validate", deck], cwd=work, capture_output=True, text=True,
                                     timeout=120)
                if run.returncode != 0:
                    message = (run.stderr + run.stdout).strip().replace(work + "/", "")
                    errors.append(f"{where}: the deck does not pass trident validate (exit {run.returncode}): "
                                  f"{message}")
    return count


def check_overrides(src, errors):
    table = open(os.path.join(src, "src", "core", "overrides.cpp"), encoding="utf-8").read()
    names = re.findall(r'\{"(TRIDENT_[A-Z0-9_]+)",', table)
    if len(names) < 3:
        errors.append("src/core/overrides.cpp: found no knob table ({\"TRIDENT_...\", ...})")
    tuning = os.path.join(src, "docs", "tuning.md")
    text = open(tuning, encoding="utf-8").read() if os.path.exists(tuning) else ""
    for name in names:
        if not re.search(r"\b" + name + r"\b", text):
            errors.append(f"docs/tuning.md: the environment override {name} is not documented")
    return len(names)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    trident, src = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    errors = []
    files = markdown_files(src)
    edges = check_links(src, files, errors)
    check_reachable(src, files, edges, errors)
    check_readme(src, errors)
    decks = check_decks(trident, src, files, errors)
    knobs = check_overrides(src, errors)
    for e in errors:
        print("FAIL:", e)
    print(f"docs: {len(files)} pages, {sum(len(v) for v in edges.values())} links between them, "
          f"{decks} decks validated, {knobs} environment overrides; {len(errors)} problem(s)")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
