"""The command-line tools: ``mgc`` (``mgc``) and ``mg-opt`` (``mg_opt``)."""
