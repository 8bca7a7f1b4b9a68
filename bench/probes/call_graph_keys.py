"""How many of a SparseLinear step's PIT calls launch a recorded call graph,
and the host's time to issue a step with call graphs on and off (issue 39).

    python3 bench/probes/call_graph_keys.py build/torch-gpu   # on the GPU
"""
import ctypes, os, sys, time
sys.path.insert(0, sys.argv[1])
os.environ.setdefault("PIT_CACHE_DIR", sys.argv[1] + "/cache")
import torch, pit.nn, pit.kernel_cache, torch_ops
rt = ctypes.CDLL(f"{sys.argv[1]}/cache/{pit.kernel_cache.compiler_version()}/libpit_cuda_runtime.so")
rt.pitCudaCallGraphLaunchCount.restype = ctypes.c_uint64
import pit.runtime as prt
calls = [0]
orig = prt.BoundCall.__call__
def counted(self, a, s):
    calls[0] += 1
    return orig(self, a, s)
prt.BoundCall.__call__ = counted
for name, m, k, n in [torch_ops.SHAPES[0], torch_ops.SHAPES[1], torch_ops.SHAPES[7]]:
    _, _, _, step = torch_ops.layer_step(torch, pit.nn, m, k, n, (32, 64), "cuda")
    for enabled in (1, 0, 1):
        rt.pitCudaSetCallGraphs(enabled)
        for _ in range(5): step()
        torch.cuda.synchronize()
        before, calls[0] = rt.pitCudaCallGraphLaunchCount(), 0
        t = time.perf_counter()
        for _ in range(20): step()
        host = (time.perf_counter() - t) / 20 * 1e3
        torch.cuda.synchronize()
        total = (time.perf_counter() - t) / 20 * 1e3
        print(f"{name} graphs {'on ' if enabled else 'off'}: {calls[0] / 20:.0f} PIT calls a step, "
              f"{(rt.pitCudaCallGraphLaunchCount() - before) / 20:.1f} graph launches; host issues a step in {host:.3f} ms, step {total:.3f} ms")
