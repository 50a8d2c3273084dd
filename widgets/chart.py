"""Interactive plots in the widget (the notebooks keep matplotlib's PNGs): ``Chart`` draws
series of points as SVG in the browser, shows what a point is when the pointer is over it
(a candidate's expression, a step's rule and time with its range), zooms with the mouse
wheel or by dragging over a range of x, and goes back to the whole plot on a double click.

The data is plain JSON set from Python (``Chart.data``); the drawing is the small
JavaScript below, so nothing is installed beyond anywidget.
"""

from __future__ import annotations

import anywidget
import traitlets

_ESM = """
const W = 640, PLOT = 230, MARGIN = {l: 58, r: 12, t: 22, b: 48};
const NS = "http://www.w3.org/2000/svg";
function node(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function ticks(lo, hi, n) {
  const step = Math.pow(10, Math.floor(Math.log10((hi - lo) / n || 1)));
  const err = (hi - lo) / n / step;
  const s = step * (err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1);
  const out = [];
  for (let v = Math.ceil(lo / s) * s; v <= hi + 1e-12; v += s) out.push(v);
  return out;
}
function logTicks(lo, hi) {  // lo, hi: log10 of the ends; ticks at 1, 2, 5 of each decade
  const pick = (ms) => {
    const out = [];
    for (let e = Math.floor(lo); e <= Math.ceil(hi); e++) {
      for (const m of ms) {
        const v = e + Math.log10(m);
        if (v >= lo - 1e-9 && v <= hi + 1e-9) out.push(v);
      }
    }
    return out;
  };
  const coarse = pick([1, 2, 5]);
  return coarse.length >= 3 ? coarse : pick([1, 2, 3, 4, 5, 6, 7, 8, 9]);
}
function fmt(v) { return Math.abs(v) >= 100 ? v.toFixed(0) : Number(v.toPrecision(3)).toString(); }
function render({ model, el }) {
  el.classList.add("wb-chart");
  el.style.position = "relative";
  let view = null;  // [x0, x1] while zoomed
  const tip = document.createElement("div");
  tip.className = "wb-chart-tip";
  tip.style.cssText = "position:absolute;display:none;pointer-events:none;background:#18181b;"
    + "color:#fafafa;font:11px monospace;padding:3px 6px;border-radius:4px;max-width:420px;"
    + "white-space:pre-wrap;overflow-wrap:anywhere;z-index:10";
  const draw = () => {
    const d = model.get("data") || {};
    el.innerHTML = "";
    // named ticks are turned 25 degrees: the bottom margin holds the longest (11px text,
    // about 6px a character) whole, below a plot of the same height
    const longest = Math.max(0, ...(d.xticks || []).map(([, label]) => String(label).length));
    const M = {...MARGIN, b: Math.max(MARGIN.b, 24 + Math.ceil(longest * 6 * 0.43))};
    const H = M.t + PLOT + M.b;
    const series = d.series || [];
    const pts = series.flatMap((s) => s.points || []);
    if (!pts.length) { el.style.display = "none"; return; }
    el.style.display = "";
    const xs = pts.map((p) => p.x), ys = pts.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]);
    const full = [Math.min(...xs) - 0.5, Math.max(...xs) + 0.5];
    const [x0, x1] = view || full;
    const shown = pts.filter((p) => p.x >= x0 && p.x <= x1);
    const yv = (shown.length ? shown : pts).flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y])
      .filter((v) => v > 0 || !d.log);
    const log = !!d.log && yv.length > 0;
    const f = (v) => (log ? Math.log10(Math.max(v, 1e-9)) : v);
    let y0 = Math.min(...yv.map(f)), y1 = Math.max(...yv.map(f));
    if (!log) y0 = Math.min(0, y0);
    if (y1 - y0 < 1e-12) { y1 += 1; y0 -= log ? 1 : 0; }
    const pad = (y1 - y0) * 0.06;
    y1 += pad;
    if (log) y0 -= pad;  // the fastest point above the bottom edge, not on it
    const X = (x) => M.l + (x - x0) / (x1 - x0) * (W - M.l - M.r);
    const Y = (y) => H - M.b - (f(y) - y0) / (y1 - y0) * (H - M.t - M.b);
    const svg = node("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`,
                             style: "font:11px sans-serif;user-select:none"}, el);
    node("rect", {x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b,
                  fill: "#fff", stroke: "#d4d4d8"}, svg);
    const clipId = "wbclip" + Math.random().toString(36).slice(2);
    node("rect", {x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b},
         node("clipPath", {id: clipId}, node("defs", {}, svg)));
    for (const v of (log ? logTicks(y0, y1) : ticks(y0, y1, 5))) {
      const y = H - M.b - (v - y0) / (y1 - y0) * (H - M.t - M.b);
      node("line", {x1: M.l, x2: W - M.r, y1: y, y2: y, stroke: "#f4f4f5"}, svg);
      node("text", {x: M.l - 4, y: y + 3, "text-anchor": "end"}, svg).textContent =
        fmt(log ? Math.pow(10, v) : v);
    }
    const named = d.xticks || [];
    const xt = named.length ? named.filter(([x]) => x >= x0 && x <= x1)
                            : ticks(x0, x1, 8).map((v) => [v, fmt(v)]);
    for (const [x, label] of xt) {
      const at = H - M.b + 12, turn = named.length ? `rotate(-25 ${X(x)} ${at})` : "";
      const t = node("text", {x: X(x), y: at, transform: turn,
                              "text-anchor": named.length ? "end" : "middle"}, svg);
      t.textContent = label;
    }
    node("text", {x: M.l + (W - M.l - M.r) / 2, y: H - 4, "text-anchor": "middle",
                  fill: "#52525b"}, svg).textContent = d.xlabel || "";
    node("text", {x: 12, y: M.t + (H - M.t - M.b) / 2, "text-anchor": "middle", fill: "#52525b",
                  transform: `rotate(-90 12 ${M.t + (H - M.t - M.b) / 2})`}, svg).textContent =
      (d.ylabel || "") + (log ? " (log)" : "");
    node("text", {x: M.l, y: 14, fill: "#18181b", "font-weight": "bold"}, svg).textContent =
      (d.title || "") + (view ? "   (zoomed: double-click for all)" : "");
    const g = node("g", {"clip-path": `url(#${clipId})`}, svg);
    const lines = node("g", {"pointer-events": "none"}, g);  // under the points, never hit
    let lx = W - M.r - 4, ly = M.t + 12;
    for (const s of series) {
      const c = s.color || "#ea580c";
      const sp = (s.points || []).slice().sort((a, b) => a.x - b.x);
      if (s.kind === "hline" && sp.length) {
        node("line", {x1: M.l, x2: W - M.r, y1: Y(sp[0].y), y2: Y(sp[0].y), stroke: c,
                      "stroke-dasharray": "5 4"}, lines);
      } else if ((s.kind === "line" || s.kind === "step") && sp.length > 1) {
        let p = `M${X(sp[0].x)},${Y(sp[0].y)}`;
        for (let i = 1; i < sp.length; i++) {
          p += s.kind === "step" ? `H${X(sp[i].x)}V${Y(sp[i].y)}` : `L${X(sp[i].x)},${Y(sp[i].y)}`;
        }
        node("path", {d: p, fill: "none", stroke: c, "stroke-width": 1.6}, lines);
      }
      for (const p of sp) {
        if (p.lo != null && p.hi != null) {
          node("line", {x1: X(p.x), x2: X(p.x), y1: Y(p.lo), y2: Y(p.hi), stroke: c,
                        "stroke-width": 1, opacity: 0.7}, lines);
        }
        if (s.kind === "hline" || s.kind === "step") continue;  // the candidates show it
        const dot = node("circle", {cx: X(p.x), cy: Y(p.y), r: s.kind === "points" ? 3 : 4,
                                    fill: s.hollow ? "none" : c, stroke: c,
                                    class: "wb-chart-point"}, g);
        dot.dataset.label = p.label || "";
      }
      if (s.name) {
        const t = node("text", {x: lx, y: ly, "text-anchor": "end", fill: c}, svg);
        t.textContent = s.name;
        ly += 13;
      }
    }
    el.appendChild(tip);
    svg.addEventListener("mousemove", (e) => {
      const target = e.target.closest && e.target.closest(".wb-chart-point");
      if (target && target.dataset.label) {
        tip.textContent = target.dataset.label;
        tip.style.display = "block";
        const r = el.getBoundingClientRect();
        tip.style.left = Math.min(e.clientX - r.left + 12, W - 200) + "px";
        tip.style.top = (e.clientY - r.top + 12) + "px";
      } else {
        tip.style.display = "none";
      }
    });
    svg.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    const xOf = (e) => x0 + (e.clientX - svg.getBoundingClientRect().left - M.l)
      / (W - M.l - M.r) * (x1 - x0);
    svg.addEventListener("wheel", (e) => {
      e.preventDefault();
      const at = xOf(e), k = e.deltaY < 0 ? 0.8 : 1.25;
      const a = at - (at - x0) * k, b = at + (x1 - at) * k;
      view = (b - a >= full[1] - full[0]) ? null : [Math.max(a, full[0]), Math.min(b, full[1])];
      draw();
    }, {passive: false});
    let from = null, band = null;
    svg.addEventListener("mousedown", (e) => {
      from = xOf(e);
      band = node("rect", {x: X(from), y: M.t, width: 0, height: H - M.t - M.b,
                           fill: "#93c5fd", opacity: 0.3}, svg);
    });
    svg.addEventListener("mousemove", (e) => {
      if (from === null) return;
      const to = xOf(e);
      band.setAttribute("x", X(Math.min(from, to)));
      band.setAttribute("width", Math.abs(X(to) - X(from)));
    });
    svg.addEventListener("mouseup", (e) => {
      if (from === null) return;
      const to = xOf(e);
      const start = from, dragged = Math.abs(X(to) - X(from)) > 6;
      from = null;
      if (dragged) {
        view = [Math.min(start, to), Math.max(start, to)];
        draw();
      } else {
        band.remove();  // a click: the drawing stays (a double click needs it)
      }
    });
  };
  el.addEventListener("dblclick", () => { if (view) { view = null; draw(); } });
  draw();
  model.on("change:data", draw);
  return () => model.off("change:data", draw);
}
export default { render };
"""


class Chart(anywidget.AnyWidget):
    """``data``: ``{"title", "xlabel", "ylabel", "log", "xticks": [[x, label]], "series":
    [{"name", "color", "kind": "points" | "line" | "step" | "hline", "hollow",
    "points": [{"x", "y", "lo", "hi", "label"}]}]}`` (``lo``/``hi``: the range drawn as a
    bar; ``label``: shown when the pointer is over the point)."""

    _esm = _ESM
    data = traitlets.Dict({}).tag(sync=True)


def _point(x: float, y: float, label: str, lo: float | None = None,
           hi: float | None = None) -> dict:
    out = {"x": x, "y": float(y), "label": label}
    if lo is not None and hi is not None:
        out.update(lo=float(lo), hi=float(hi))
    return out


def steps_chart(labels: list[str], expressions: list[str], times: list, peers: dict,
                device: str = "") -> dict:
    """Kernel time along the derivation: one point per measured step with its range (min to
    max of the repeats) as a bar; the pointer over a point shows the step's rule, its time
    and its expression; each peer is a dashed line. ``times`` holds ``(median, min, max)``
    or None per step; ``peers`` maps a name to ``(median, min, max)``."""
    points = [_point(k, t[0], f"{labels[k]}: {t[0]:.4f} ms [{t[1]:.4f}–{t[2]:.4f}]\n"
                     f"{expressions[k]}", t[1], t[2])
              for k, t in enumerate(times) if t is not None]
    series = [{"name": f"OpenCL kernel{' on ' + device if device else ''}",
               "color": "#ea580c", "kind": "line", "points": points}]
    for (name, (ms, low, high)), colour in zip(peers.items(), ("#2563eb", "#16a34a")):
        series.append({"name": f"{name}: {ms:.4g} ms", "color": colour, "kind": "hline",
                       "points": [_point(0, ms, name, low, high)]})
    return {"title": "runtime along the derivation (drag or wheel to zoom)",
            "xlabel": "", "ylabel": "kernel time (ms, median and range)",
            "log": spans_decades([t for t in times if t is not None]
                                 + list(peers.values())),
            "xticks": [[k, label] for k, label in enumerate(labels)], "series": series}


def spans_decades(spreads: list, ratio: float = 10.0) -> bool:
    """Whether times ``(median, min, max)`` differ by ``ratio`` or more (a peer at 25 ms beside
    kernels at 0.2 ms): then the axis is logarithmic, so every time keeps its own height
    instead of the slowest setting the scale and the others lying flat on the axis."""
    values = [v for t in spreads for v in t if v is not None and v > 0]
    return bool(values) and max(values) >= ratio * min(values)


def search_chart(records: list, get) -> dict:
    """Every evaluated candidate a point (the pointer over it shows its expression and time
    with its range), the best so far a step line, and the cost model's predictions."""
    measured, best, predicted, low = [], [], [], None
    for i, r in enumerate(records, start=1):
        ms = get(r, "kernel_ms")
        text = str(get(r, "expression") or "")
        guess = get(r, "predicted_ms")
        if guess:
            predicted.append(_point(i, guess, f"candidate {i}, predicted {guess:.4f} ms\n{text}"))
        if ms is None or get(r, "correct") is False:
            continue
        lo, hi = get(r, "kernel_ms_min"), get(r, "kernel_ms_max")
        shown = f"{ms:.4f} ms" + (f" [{lo:.4f}–{hi:.4f}]" if lo is not None else "")
        measured.append(_point(i, ms, f"candidate {i}: {shown}\n{text}", lo, hi))
        if low is None or ms < low:
            low = ms
        best.append(_point(i, low, f"best after {i} candidates: {low:.4f} ms"))
    series = [{"name": "candidate", "color": "#64748b", "kind": "points", "points": measured},
              {"name": "best so far", "color": "#ea580c", "kind": "step", "points": best}]
    if predicted:
        series.append({"name": "predicted (cost model)", "color": "#0284c7", "kind": "points",
                       "hollow": True, "points": predicted})
    return {"title": "search efficiency (drag or wheel to zoom)",
            "xlabel": "evaluated candidates", "ylabel": "kernel time (ms)",
            "log": bool(predicted), "series": series}
