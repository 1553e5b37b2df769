"""Line charts as SVG, drawn by migsched's chart writer (the style of its learning curves)."""
from ._native import call_text, cstr, ffi, lib


def chart_svg(series, title=None, xlabel=None, ylabel=None):
    """series: [(label, xs, ys), ...], each a polyline; returns the SVG text."""
    keep = []
    labels, xs, ys, ns = [], [], [], []
    for label, x, y in series:
        x = [float(v) for v in x]
        y = [float(v) for v in y]
        if len(x) != len(y):
            raise ValueError(f"series {label!r}: {len(x)} x values but {len(y)} y values")
        lab = ffi.new("char[]", str(label).encode())
        cx, cy = ffi.new("double[]", x or [0.0]), ffi.new("double[]", y or [0.0])
        keep += [lab, cx, cy]
        labels.append(lab)
        xs.append(cx)
        ys.append(cy)
        ns.append(len(x))
    return call_text(
        lib.msc_chart_svg, cstr(title), cstr(xlabel), cstr(ylabel), len(ns),
        ffi.new("const char *[]", labels), ffi.new("const double *[]", xs),
        ffi.new("const double *[]", ys), ffi.new("int[]", ns),
    )
