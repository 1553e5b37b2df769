/* plot_html.c: a schedule plot as one self-contained HTML page (inline SVG, a small inline
 * script that shows each box's details on hover; nothing is fetched). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "migsched/chart.h"
#include "migsched/io.h"
#include "migsched/plot.h"
#include "plot_internal.h"

static const char STYLE[] =
    "<style>\n"
    "body{font-family:sans-serif;margin:16px;color:#111}\n"
    "#tip{position:fixed;display:none;background:#fffbe6;border:1px solid #999;padding:4px 8px;"
    "font-size:12px;pointer-events:none;white-space:nowrap;box-shadow:2px 2px 4px #0003}\n"
    "rect[data-tip]:hover{stroke:#000;stroke-width:1.5}\n"
    "</style>\n";

/* Shows the hovered element's data-tip next to the pointer. */
static const char SCRIPT[] =
    "<script>\n"
    "(function(){var tip=document.getElementById('tip');\n"
    "document.querySelectorAll('[data-tip]').forEach(function(e){\n"
    "e.addEventListener('mousemove',function(ev){tip.textContent=e.getAttribute('data-tip');"
    "tip.style.left=(ev.clientX+12)+'px';tip.style.top=(ev.clientY+12)+'px';"
    "tip.style.display='block';});\n"
    "e.addEventListener('mouseleave',function(){tip.style.display='none';});});})();\n"
    "</script>\n";

int ms_plot_html(const ms_schedule *s, const ms_plot_labels *lab, FILE *f, ms_error *err)
{
    const char *title = lab->title ? lab->title : s->algorithm;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>", f);
    ms_svg_escape(f, title);
    fputs(" - migsched schedule</title>\n", f);
    fputs(STYLE, f);
    fputs("</head>\n<body>\n<div id=\"tip\"></div>\n", f);
    plot_svg_element(s, lab, f);
    fputs(SCRIPT, f);
    fputs("</body>\n</html>\n", f);
    if (ferror(f))
        return ms_error_set(err, MS_EIO, "cannot write the HTML");
    return MS_OK;
}

bool plot_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcasecmp(s + n - m, suffix);
}

int ms_plot_write_file(const char *path, const ms_schedule *s, const ms_plot_labels *lab,
                       ms_error *err)
{
    bool html = plot_ends_with(path, ".html") || plot_ends_with(path, ".htm");
    if (!html && !plot_ends_with(path, ".svg"))
        return ms_error_set(err, MS_EINVAL, "%s: the plot file must end in .svg or .html", path);
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    rc = html ? ms_plot_html(s, lab, o.f, err) : ms_plot_svg(s, lab, o.f, err);
    if (rc) {
        ms_output_abort(&o);
        ms_error_prefix(err, "%s", path);
        return rc;
    }
    return ms_output_commit(&o, err);
}
