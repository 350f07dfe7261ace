#!/usr/bin/python3
"""The ridge L-curve figure: runs trident_postprocess.lcurve from a checkout (installed, the
same is the command trident-lcurve); see --help."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from trident_postprocess.lcurve import main  # noqa: E402

main()
