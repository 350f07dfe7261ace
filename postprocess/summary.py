#!/usr/bin/python3
"""A one-page text summary of any output: runs trident_postprocess.summary from a checkout
(installed, the same is the command trident-summary); see --help."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from trident_postprocess.summary import main  # noqa: E402

main()
