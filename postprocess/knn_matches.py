#!/usr/bin/python3
"""The matched pairs of a knn.match run: runs trident_postprocess.knn_matches from a checkout
(installed, the same is the command trident-knn-matches); see --help."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from trident_postprocess.knn_matches import main  # noqa: E402

main()
