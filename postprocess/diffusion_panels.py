#!/usr/bin/python3
"""The diffusion start, final and Laplacian panels: runs trident_postprocess.diffusion_panels
from a checkout (installed, the same is the command trident-diffusion-panels); see --help."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from trident_postprocess.diffusion_panels import main  # noqa: E402

main()
