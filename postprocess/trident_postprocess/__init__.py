"""trident's post-processing as a Python package: plots and summaries of trident's HDF5
outputs (h5py, numpy, matplotlib).

Modules: trident_h5 (reading outputs, the choices every plot makes; raises OutputError
instead of exiting), lcurve, knn_map, knn_matches, diffusion_panels, diffusion_frames and summary, each
with draw() or summarize() for use from Python and main(argv) for the command line. The
installed commands trident-lcurve, trident-knn-map, trident-knn-matches, trident-diffusion-panels,
trident-diffusion-frames and trident-summary run those main()s; so do the launchers in
postprocess/ of a checkout and `python3 -m trident_postprocess.lcurve`.
"""
from trident_postprocess.trident_h5 import OutputError  # noqa: F401

# The command name of each script module, as installed beside trident.
COMMANDS = {
    "trident-lcurve": "lcurve",
    "trident-knn-map": "knn_map",
    "trident-knn-matches": "knn_matches",
    "trident-diffusion-panels": "diffusion_panels",
    "trident-diffusion-frames": "diffusion_frames",
    "trident-summary": "summary",
}
