"""Parallel loops to GPU kernels: ``convert-parallel-loops-to-gpu`` maps loops to threads
and blocks, ``gpu-kernel-outlining`` moves kernels into a ``gpu.module``,
``convert-gpu-to-nvvm`` lowers that module for PTX, ``gpu-to-runtime-calls`` turns launches
into calls of the GPU run time."""
