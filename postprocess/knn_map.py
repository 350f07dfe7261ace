#!/usr/bin/python3
"""The map and histogram of kNN distances: runs trident_postprocess.knn_map from a checkout
(installed, the same is the command trident-knn-map); see --help."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from trident_postprocess.knn_map import main  # noqa: E402

main()
