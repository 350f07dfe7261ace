#!/usr/bin/env python3
"""Runs a command with a stop signal already pending, so a test of the stop path needs no
timing: the signal is blocked, sent to this process (it stays pending), and survives the
exec; trident unblocks it at start (core/signals.cpp), records it, and its studies stop at
their first check.

usage: pending_signal.py USR1|TERM RANKS COMMAND...
RANKS: 'all', or comma-separated ranks (OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID;
0 outside a launcher) that get the signal; the other ranks run the command plainly.
"""
import os
import signal
import sys

name, ranks, command = sys.argv[1], sys.argv[2], sys.argv[3:]
rank = next((os.environ[v] for v in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID") if v in os.environ), "0")
if ranks == "all" or rank in ranks.split(","):
    signum = getattr(signal, "SIG" + name)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signum})
    os.kill(os.getpid(), signum)
    assert signum in signal.sigpending(), "the signal is not pending"
os.execvp(command[0], command)
