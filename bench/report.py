"""Turns a results.json of run_benchmark.py into what docs/BENCHMARKS.md shows:
a markdown table of medians and ratios (printed), and a plot of latency
against sparsity for each granularity (PNG). Runs here, with matplotlib.

    python bench/report.py RESULTS.json PLOT.png > table.md
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PEERS = [("pit", "PIT"), ("dense", "PIT dense fallback"), ("cublas", "cuBLAS dense"), ("cusparse", "cuSPARSE CSR"),
         ("triton", "Triton BSR"), ("ideal", "ideal")]


def number(value):
    return value if isinstance(value, float) else None


def range_text(values):
    """Sorted values as text: their range and median."""
    return (f"{values[0]:.2f}-{values[-1]:.2f} (median "
            f"{values[len(values) // 2]:.2f})")


def spread(ratios):
    """Sorted ratios to the oracle as text: their range, median, and how
    many are within 10%."""
    return (f"{range_text(ratios)}, within 10% on "
            f"{sum(q <= 1.10 for q in ratios)} of {len(ratios)}")


def selection_summary(results):
    """How close run-time selection came to the oracle (the best of the
    forced variants, same run), and what it added per call."""
    rows = [r for r in results["matmul"] if number(r.get("oracle"))]
    if not rows:
        return ""
    ratios = sorted(r["pit"] / r["oracle"] for r in rows)
    added = sorted((r["pit"] - r["oracle"]) * 1e3 for r in rows)
    within = sum(q <= 1.10 for q in ratios)
    summary = (f"Selection: PIT / oracle {range_text(ratios)}; within 10% of "
               f"the oracle on {within} of {len(rows)} cases; PIT - oracle "
               f"{added[0]:.0f}-{added[-1]:.0f} us (median "
               f"{added[len(added) // 2]:.0f} us).")
    chosen = sorted(r["chosen_forced"] / r["oracle"] for r in rows
                    if number(r.get("chosen_forced")))
    if chosen:
        summary += (f" The variant chosen (pitCudaLastChoice), forced, "
                    f"against the oracle: {spread(chosen)}; the oracle's own "
                    f"on {sum(r.get('chosen') == r.get('oracle_variant') for r in rows)}.")
    paired = sorted(r["paired_select"] / r["paired_oracle"] for r in rows
                    if number(r.get("paired_select")))
    if paired:
        summary += f" Timed in turn with the oracle's library: {spread(paired)}."
    against_cublas = sorted(r["paired_select"] / r["paired_cublas"] for r in rows
                            if r.get("sparsity") == 0.5 and number(r.get("paired_cublas")))
    if against_cublas:
        summary += (f" At 50%, PIT / cuBLAS timed in turn on the same inputs: "
                    f"{range_text(against_cublas)}.")
    device = sorted(r["select_device_us"] / r["oracle_device_us"] for r in rows
                    if number(r.get("select_device_us")))
    if device:
        extra = sorted(r["select_device_us"] - r["oracle_device_us"] for r in rows
                       if number(r.get("select_device_us")))
        summary += (f" Device time a call against the oracle's library: "
                    f"{spread(device)}; selection adds {extra[0]:.1f} to "
                    f"{extra[-1]:.1f} us.")
    graphs = sorted(r["select_launches"] / r["select_graphs"] for r in rows
                    if number(r.get("select_graphs")))
    if graphs:
        saved = sorted((r["select_launches"] - r["select_graphs"]) * 1e3
                       for r in rows if number(r.get("select_graphs")))
        summary += (f" Launch by launch / with call graphs, timed apart: "
                    f"{range_text(graphs)}; graphs save "
                    f"{saved[0]:.0f} to {saved[-1]:.0f} us a call.")
    return summary + sddmm_selection_summary(results)


def sddmm_selection_summary(results):
    """The same for the SDDMM cases (all timed in turn)."""
    rows = [r for r in results.get("sddmm", []) if number(r.get("chosen_forced"))]
    if not rows:
        return ""
    chosen = sorted(r["chosen_forced"] / r["oracle"] for r in rows)
    ratios = sorted(r["pit"] / r["oracle"] for r in rows)
    summary = (f" SDDMM: PIT / oracle {spread(ratios)}; the variant chosen, "
               f"forced, against the oracle: {spread(chosen)}")
    device = sorted(r["select_device_us"] / r["oracle_device_us"] for r in rows
                    if number(r.get("select_device_us")))
    if device:
        summary += f"; device time a call against the oracle's library: {spread(device)}"
    return summary + "."


def ms(value):
    return f"{value:.3f}" if isinstance(value, float) else "n/a"


def ratio(a, b):
    return f"{a / b:.2f}" if number(a) and number(b) else "n/a"


def cublas_ratio(row):
    """cuBLAS's time over PIT's: timed in turn on the case's inputs where the
    run did so, else PIT's median against cuBLAS's."""
    if number(row.get("paired_cublas")):
        return ratio(row["paired_cublas"], row["paired_select"])
    return ratio(row["cublas"], row["pit"])


def device_ratio(row):
    """Selection's device time a call over the oracle's, with both (us)."""
    if not number(row.get("select_device_us")):
        return "n/a"
    return (f"{row['select_device_us'] / row['oracle_device_us']:.2f} "
            f"({row['select_device_us']:.0f} / {row['oracle_device_us']:.0f})")


def table(results):
    lines = ["| dtype | micro-tile | sparsity | PIT | PIT's STile (best tile) | PIT dense | PIT / oracle "
             "| PIT / oracle, in turn | PIT / oracle, device (us) | chosen (forced / oracle) "
             "| launch by launch / graph | cuBLAS | cuSPARSE | Triton | ideal "
             "| cuBLAS / PIT | best peer / PIT | PIT / ideal | detection | to_sparse_bsr / detection |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in results["matmul"]:
        peers = [row[k] for k in ("cublas", "cusparse", "triton") if number(row[k])]
        # The first two pieces of device work: clear the counts (memset),
        # scan; then (1x64) clearing C, and the STile. (Runs before the tile
        # variants cleared C first.)
        detection = row["pit_kernels"][0] + row["pit_kernels"][1]
        lines.append(
            f"| {row['dtype']} | {row['micro']} | {row['sparsity']:.2f} | {ms(row['pit'])} "
            f"| {ms(row.get('fixed'))} ({row.get('stile_tile', 'default')}) "
            f"| {ms(row.get('dense'))} "
            f"| {ratio(row['pit'], row.get('oracle'))} "
            f"| {ratio(row.get('paired_select'), row.get('paired_oracle'))} "
            f"| {device_ratio(row)} "
            f"| {row.get('chosen', 'n/a')} "
            f"({ratio(row.get('chosen_forced'), row.get('oracle'))}) "
            f"| {ratio(row.get('select_launches'), row.get('select_graphs'))} "
            f"| {ms(row['cublas'])} | {ms(row['cusparse'])} | {ms(row['triton'])} "
            f"| {ms(row['ideal'])} | {cublas_ratio(row)} "
            f"| {ratio(min(peers), row['pit'])} | {ratio(row['pit'], row['ideal'])} "
            f"| {detection * 1e3:.0f} us | {ratio(row['to_sparse_bsr'], detection)} |")
    lines += ["", "| mask micro-tile | K | sparsity | PIT | chosen (forced / oracle) "
              "| STile | dense SDDMM | PIT / oracle | dense then mask | sampled_addmm "
              "| dense then mask / PIT | sampled_addmm / PIT |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in results["sddmm"]:
        lines.append(
            f"| {row['micro']} | {row['k']} | {row['sparsity']:.2f} | {ms(row['pit'])} "
            f"| {row.get('chosen', 'n/a')} "
            f"({ratio(row.get('chosen_forced'), row.get('oracle'))}) "
            f"| {ms(row.get('fixed'))} | {ms(row.get('dense'))} "
            f"| {ratio(row['pit'], row.get('oracle'))} "
            f"| {ms(row['dense_then_mask'])} | {ms(row['sampled_addmm'])} "
            f"| {ratio(row['dense_then_mask'], row['pit'])} "
            f"| {ratio(row['sampled_addmm'], row['pit'])} |")
    return "\n".join(lines + ["", selection_summary(results)])


def plot(results, path):
    rows = [r for r in results["matmul"] if r["dtype"] == "f16"]
    micros = list(dict.fromkeys(r["micro"] for r in rows))
    if not micros:
        return  # a run of SDDMM cases only (--only sddmm)
    figure, axes = plt.subplots(1, len(micros), figsize=(4 * len(micros), 3.6),
                                sharey=True)
    for axis, micro in zip(axes, micros):
        mine = [r for r in rows if r["micro"] == micro]
        sparsities = [r["sparsity"] for r in mine]
        for key, label in PEERS:
            values = [number(r[key]) for r in mine]
            if any(v is not None for v in values):
                axis.plot(sparsities, values, marker="o", label=label)
        axis.set_title(f"A sparse in {micro} micro-tiles")
        axis.set_xlabel("sparsity")
        axis.set_yscale("log")
        axis.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("ms (median, conversion included)")
    axes[0].legend(fontsize=8)
    figure.suptitle(f"C = A x B, 4096^3 fp16, {results['device']}")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main():
    results = json.load(open(sys.argv[1]))
    plot(results, sys.argv[2])
    print(table(results))


if __name__ == "__main__":
    main()
