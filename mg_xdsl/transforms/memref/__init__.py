"""Transforms of buffers: views of buffers (``memref_views``) and freeing them (``buffer-deallocation``)."""
