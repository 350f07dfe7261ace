#!/usr/bin/python3
"""Checks the #SBATCH lines of every template in jobs/ without a SLURM: each has commented
'##SBATCH --account=' and '##SBATCH --partition=' lines, several CPUs per task with the
reason in the comment above, and, where it asks for GPUs with --gpus-*, a commented
'##SBATCH --gres=gpu:N' whose N is the GPUs of one node that the --gpus-* line asks for.
All of them in the directive block (sbatch reads no #SBATCH line after the first command),
so that removing one '#' is all a user does.

usage: template_lines.py JOBS_FOLDER
Prints one line per template; exits 1 if any check failed.
"""
import glob
import os
import re
import sys


def directive_block(lines):
    """The lines sbatch reads directives from: up to the first command."""
    block = []
    for line in lines[1:]:
        if line.strip() and not line.startswith("#"):
            break
        block.append(line)
    return block


def options(block, prefix):
    """{option: value} of the lines that start with prefix ('#SBATCH' or '##SBATCH')."""
    out = {}
    for line in block:
        m = re.match(re.escape(prefix) + r" +--([a-z-]+)(?:=(\S+))?\s*$", line)
        if m:
            out[m[1]] = m[2]
    return out


def check(path):
    with open(path) as f:
        lines = f.read().splitlines()
    block = directive_block(lines)
    active, commented = options(block, "#SBATCH"), options(block, "##SBATCH")
    problems = []
    for key in ("account", "partition"):
        if key not in commented:
            problems.append(f"no commented '##SBATCH --{key}=' line among the directives")
    cpus = active.get("cpus-per-task")
    if cpus is None or not cpus.isdigit() or int(cpus) < 2:
        problems.append(f"expected '#SBATCH --cpus-per-task=N' with N of at least 2, got {cpus}")
    else:
        at = next(i for i, line in enumerate(block) if line.startswith("#SBATCH --cpus-per-task="))
        above = []
        for line in reversed(block[:at]):
            if not line.startswith("# "):
                break
            above.append(line)
        if not any("CPUs" in line for line in above):
            problems.append("no comment right above --cpus-per-task saying why a rank gets several CPUs")
    gpus = {k: v for k, v in active.items() if k.startswith("gpus")}
    if gpus:
        if "gres" not in commented or not re.fullmatch(r"gpu:\d+", commented["gres"] or ""):
            problems.append("asks for GPUs with --gpus-* but has no commented '##SBATCH --gres=gpu:N' alternative")
        else:
            per_node = None
            if "gpus-per-node" in gpus:
                per_node = int(gpus["gpus-per-node"])
            elif "gpus-per-task" in gpus:
                tasks = active.get("ntasks-per-node") or (active.get("ntasks") if active.get("nodes") == "1" else None)
                per_node = int(gpus["gpus-per-task"]) * int(tasks) if tasks else None
            n = int(commented["gres"].split(":")[1])
            if per_node is not None and n != per_node:
                problems.append(f"--gres=gpu:{n}, but the --gpus-* line asks for {per_node} GPUs a node")
    name = os.path.basename(path)
    if problems:
        for p in problems:
            print(f"FAIL: {name}: {p}")
    else:
        print(f"ok: {name}: --cpus-per-task={cpus}, commented account and partition"
              + (f", --gres=gpu:{commented['gres'].split(':')[1]} beside --{next(iter(gpus))}" if gpus else ""))
    return not problems


def main():
    templates = sorted(glob.glob(os.path.join(sys.argv[1], "*.sbatch")))
    if not templates:
        sys.exit(f"template_lines.py: no *.sbatch in {sys.argv[1]}")
    results = [check(t) for t in templates]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
