#!/usr/bin/python3
"""Deck fuzz test: random mutations of the example and bad decks, through the real trident.

usage: deck_fuzz.py TRIDENT DECK_WORK SOURCE_DIR

Each case mutates one seed deck (inputs/*_small.yaml, tests/cli/bad_decks/*.yaml; see
deck_mutations.py), runs `trident validate` on it and, when the deck is accepted and
DECK_WORK (trident_deck_work) estimates its work and memory under the limits below,
`trident run --output` into a fresh folder. Every case must end with exit 0, 1 or 2:
never a signal, a core dump or a hang; a case that ends with 1 or 2 prints exactly one
`trident: error:` line and leaves its output folder empty; a run that ends with 0 leaves
its output file. One rank.
(The one exception, documented in the README: a diffusion field that turns non-finite
ends with exit 1 and keeps the finished output file with the frames before it.)

Environment:
  TRIDENT_FUZZ_SEED=N   seed of the whole sequence (default below; always printed)
  TRIDENT_FUZZ_CASES=N  number of cases (default below)
  TRIDENT_FUZZ_ONLY=I   run case I alone (same seed): what a failure report says to do
  TRIDENT_FUZZ_KEEP=DIR copy each failing case's folder there
"""
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deck_mutations  # noqa: E402

DEFAULT_SEED = 20261123
DEFAULT_CASES = 150  # about 1.5 minutes on 2 shared cores
# Runs only decks estimated under 2e9 operations (a few seconds on one core at worst;
# the small decks are 0.03e9 to 0.4e9) and 256 MiB.
WORK_LIMIT = 2e9
BYTES_LIMIT = 256 * 2**20
# A safety net only, far above any run under WORK_LIMIT: a case that reaches it is
# reported as a hang. No verdict depends on how long a case took otherwise.
HANG_SECONDS = 120
# The README's one exception to "a failed run leaves nothing": a diffusion field that
# turns non-finite ends the run with exit 1 and keeps the frames written before it, in
# the finished output file.
NON_FINITE_STOP = re.compile(r"^trident: error: diffusion: the field turned non-finite", re.M)


def child_environment():
    env = dict(os.environ)
    env.update({
        "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        # One rank: no orted to spawn for the singleton and no transport beyond the
        # process itself; halves the start-up time of every case.
        "OMPI_MCA_ess_singleton_isolated": "1", "OMPI_MCA_btl": "self",
    })
    return env


def execute(command, cwd):
    """Runs a command in its own process group; returns (exit code, output, hung)."""
    process = subprocess.Popen(command, cwd=cwd, env=child_environment(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=HANG_SECONDS)
        return process.returncode, output.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return process.returncode, output.decode("utf-8", "replace"), True


def outcome_problems(name, rc, output, hung):
    """What is wrong with one command's end, as a list of sentences (empty: nothing)."""
    if hung:
        return ["%s did not finish within %d s (a hang?)" % (name, HANG_SECONDS)]
    if rc < 0:
        return ["%s was killed by signal %d (%s)" % (name, -rc, signal.Signals(-rc).name)]
    if rc not in (0, 1, 2):
        return ["%s ended with exit %d; expected 0, 1 or 2" % (name, rc)]
    errors = [line for line in output.splitlines() if line.startswith("trident: error:")]
    if rc != 0 and len(errors) != 1:
        return ["%s ended with exit %d and %d 'trident: error:' lines; expected one" % (name, rc, len(errors))]
    return []


def seed_decks(source_dir):
    decks = sorted(glob.glob(os.path.join(source_dir, "inputs", "*_small.yaml")))
    decks += sorted(glob.glob(os.path.join(source_dir, "tests", "cli", "bad_decks", "*.yaml")))
    return decks


def data_files(source_dir):
    """Files the bad decks name (CSV, Matrix Market, HDF5), copied beside every mutant."""
    folder = os.path.join(source_dir, "tests", "cli", "bad_decks")
    return sorted(path for pattern in ("*.csv", "*.mtx", "*.h5") for path in glob.glob(os.path.join(folder, pattern)))


def work_estimate(deck_work, deck, cwd):
    rc, output, hung = execute([deck_work, deck], cwd)
    if hung or rc != 0:
        return None, ["trident_deck_work failed on a deck that validate accepted (exit %s): %s" % (rc, output)]
    words = output.split()
    return (float(words[1]), float(words[3])), []


def run_case(index, seed, decks, data, trident, deck_work, root):
    rng = random.Random("%d:%d" % (seed, index))  # each case alone is reproducible
    # Half the cases start from a runnable example, so that many mutants pass validation
    # and run; the other half from a bad deck, nearer to the validators' edges.
    examples = [d for d in decks if d.endswith("_small.yaml")]
    seed_deck = rng.choice(examples if rng.random() < 0.5 else decks)
    with open(seed_deck, "rb") as f:
        original = f.read().decode("latin-1")
    text, mutations = deck_mutations.mutate(rng, original)
    folder = os.path.join(root, "case%04d" % index)
    output_folder = os.path.join(folder, "out")
    os.makedirs(output_folder)
    for path in data:
        shutil.copy(path, folder)
    with open(os.path.join(folder, "deck.yaml"), "wb") as f:
        f.write(text.encode("latin-1"))
    case = {"index": index, "seed_deck": os.path.basename(seed_deck), "mutations": mutations,
            "text": text, "folder": folder, "ran": False, "skipped_large": False}

    # validate checks the output's place as run would: the same --output
    rc, output, hung = execute([trident, "validate", "deck.yaml", "--output", "out/result.h5"], folder)
    case["validate"] = rc
    problems = outcome_problems("trident validate", rc, output, hung)
    details = [("trident validate", rc, output)]
    if not problems and rc == 0:
        estimate, problems = work_estimate(deck_work, "deck.yaml", folder)
        if estimate and (estimate[0] > WORK_LIMIT or estimate[1] > BYTES_LIMIT):
            case["skipped_large"] = True
        elif estimate:
            case["ran"] = True
            rc, output, hung = execute([trident, "run", "deck.yaml", "--output", "out/result.h5"], folder)
            case["run"] = rc
            details.append(("trident run", rc, output))
            problems = outcome_problems("trident run", rc, output, hung)
            left = sorted(os.listdir(output_folder))
            kept_as_documented = (rc == 1 and NON_FINITE_STOP.search(output) and "result.h5" in left
                                  and not any(name.endswith(".partial") for name in left))
            if not problems and rc != 0 and left and not kept_as_documented:
                problems.append("trident run ended with exit %d but left %s in its output folder" % (rc, left))
            if not problems and rc == 0 and "result.h5" not in left:
                problems.append("trident run ended with exit 0 without its output file (found %s)" % left)
    case["problems"] = problems
    case["details"] = details
    return case


def report_failure(case, seed):
    print("FAIL case %d: %s" % (case["index"], "; ".join(case["problems"])))
    print("  seed deck %s, mutations %s" % (case["seed_deck"], ", ".join(case["mutations"]) or "none"))
    print("  reproduce: TRIDENT_FUZZ_SEED=%d TRIDENT_FUZZ_ONLY=%d ctest --preset cpu -R cli.deck_fuzz -V"
          % (seed, case["index"]))
    for name, rc, output in case["details"]:
        tail = output.strip().splitlines()[-8:]
        print("  %s: exit %s\n    %s" % (name, rc, "\n    ".join(tail)))
    print("  deck (Latin-1, non-printing bytes escaped):")
    shown = case["text"].encode("latin-1").decode("ascii", "backslashreplace")
    for line in shown.split("\n"):
        print("    | " + line)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    trident, deck_work, source_dir = sys.argv[1:]
    seed = int(os.environ.get("TRIDENT_FUZZ_SEED", DEFAULT_SEED))
    cases = int(os.environ.get("TRIDENT_FUZZ_CASES", DEFAULT_CASES))
    only = os.environ.get("TRIDENT_FUZZ_ONLY")
    indices = [int(only)] if only else range(cases)
    keep = os.environ.get("TRIDENT_FUZZ_KEEP")
    decks, data = seed_decks(source_dir), data_files(source_dir)
    print("deck fuzz: seed %d (TRIDENT_FUZZ_SEED), %d cases, %d seed decks" % (seed, len(indices), len(decks)))
    sys.stdout.flush()

    failures = []
    counts = {"validate accepted": 0, "ran": 0, "too large to run": 0}
    root = tempfile.mkdtemp(prefix="trident_deck_fuzz.")
    try:
        for index in indices:
            case = run_case(index, seed, decks, data, trident, deck_work, root)
            counts["validate accepted"] += case["validate"] == 0
            counts["ran"] += case["ran"]
            counts["too large to run"] += case["skipped_large"]
            if case["problems"]:
                failures.append(case)
                report_failure(case, seed)
                if keep:
                    shutil.copytree(case["folder"], os.path.join(keep, os.path.basename(case["folder"])))
                sys.stdout.flush()
            shutil.rmtree(case["folder"], ignore_errors=True)
            print("case %d: %s %s, validate %s%s" % (
                index, case["seed_deck"], "+".join(case["mutations"]) or "unchanged", case["validate"],
                ", run %s" % case["run"] if case["ran"] else ", too large to run" if case["skipped_large"] else ""))
            sys.stdout.flush()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("deck fuzz: %d cases, %s; %d failed (seed %d)"
          % (len(indices), ", ".join("%s %d" % kv for kv in counts.items()), len(failures), seed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
