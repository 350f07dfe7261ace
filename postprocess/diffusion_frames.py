#!/usr/bin/python3
"""The diffusion time series as frames or a GIF: runs trident_postprocess.diffusion_frames from
a checkout (installed, the same is the command trident-diffusion-frames); see --help."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from trident_postprocess.diffusion_frames import main  # noqa: E402

main()
