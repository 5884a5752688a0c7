//! Which exposition format a scraper gets, and the Prometheus text format 0.0.4 for those that
//! do not ask for OpenMetrics.
//!
//! Prometheus asks for `application/openmetrics-text` in `Accept` (with text 0.0.4 as a
//! fallback); curl, older Prometheus servers and other agents send `*/*` or `text/plain`. The
//! text is built once, as OpenMetrics, and rewritten line by line for the others: the two formats
//! differ only where a family is named (`# HELP`/`# TYPE` of a counter name the family without
//! `_total` in OpenMetrics, with it in 0.0.4; an `info` family is a gauge named `..._info`), in
//! `# UNIT` lines and in the `# EOF` terminator, which 0.0.4 does not have.

/// An exposition format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// OpenMetrics 1.0 text.
    OpenMetrics,
    /// Prometheus text format 0.0.4.
    Text,
}

impl Format {
    /// The `Content-Type` of a response in this format.
    #[must_use]
    pub(crate) fn content_type(self) -> &'static str {
        match self {
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            Format::Text => "text/plain; version=0.0.4; charset=utf-8",
        }
    }

    /// The format an `Accept` header asks for: OpenMetrics when it lists
    /// `application/openmetrics-text` with a quality above 0, else text 0.0.4.
    #[must_use]
    pub(crate) fn negotiate(accept: Option<&str>) -> Format {
        let wants_openmetrics = accept.is_some_and(|accept| {
            accept.split(',').any(|range| {
                let mut params = range.split(';').map(str::trim);
                let media = params.next().unwrap_or("");
                let quality = params
                    .filter_map(|p| p.strip_prefix("q="))
                    .find_map(|q| q.parse::<f64>().ok())
                    .unwrap_or(1.0);
                media.eq_ignore_ascii_case("application/openmetrics-text") && quality > 0.0
            })
        });
        if wants_openmetrics {
            Format::OpenMetrics
        } else {
            Format::Text
        }
    }
}

/// OpenMetrics text (as `prometheus-client` writes it: `# HELP` before `# TYPE`, no `_created`)
/// rewritten as Prometheus text format 0.0.4.
#[must_use]
pub fn openmetrics_to_text(openmetrics: &str) -> String {
    let mut out = String::with_capacity(openmetrics.len());
    // The HELP line of the family being read, written once its TYPE says how it is named.
    let mut help: Option<(&str, &str)> = None;
    for line in openmetrics.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            help = Some(rest.split_once(' ').unwrap_or((rest, "")));
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or((rest, "untyped"));
            let (suffix, kind) = match kind {
                "counter" => ("_total", "counter"),
                "info" => ("_info", "gauge"),
                "gauge" | "histogram" | "summary" => ("", kind),
                _ => ("", "untyped"),
            };
            if let Some((help_name, text)) = help.take().filter(|(n, _)| *n == name) {
                out.push_str("# HELP ");
                out.push_str(help_name);
                out.push_str(suffix);
                out.push(' ');
                out.push_str(text);
                out.push('\n');
            }
            out.push_str("# TYPE ");
            out.push_str(name);
            out.push_str(suffix);
            out.push(' ');
            out.push_str(kind);
            out.push('\n');
        } else if line.starts_with("# UNIT ") || line == "# EOF" {
            // Not part of 0.0.4: the unit is already in the name.
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prometheus_gets_openmetrics_and_everyone_else_text() {
        let prometheus = "application/openmetrics-text;version=1.0.0;q=0.5,\
                          application/openmetrics-text;version=0.0.1;q=0.4,\
                          text/plain;version=0.0.4;q=0.3,*/*;q=0.2";
        let cases = [
            (Some(prometheus), Format::OpenMetrics),
            (Some("application/openmetrics-text"), Format::OpenMetrics),
            (
                Some("Application/OpenMetrics-Text; version=1.0.0"),
                Format::OpenMetrics,
            ),
            (
                Some("application/openmetrics-text;q=0,text/plain"),
                Format::Text,
            ),
            (Some("text/plain;version=0.0.4"), Format::Text),
            (Some("*/*"), Format::Text),
            (None, Format::Text),
        ];
        for (accept, want) in cases {
            assert_eq!(Format::negotiate(accept), want, "{accept:?}");
        }
    }

    #[test]
    fn counters_infos_units_and_eof_become_text_0_0_4() {
        let om = "# HELP node_disk_read_bytes The total number of bytes read successfully.\n\
                  # TYPE node_disk_read_bytes counter\n\
                  # UNIT node_disk_read_bytes bytes\n\
                  node_disk_read_bytes_total{device=\"vda\"} 512\n\
                  # HELP node_disk_io_now The number of I/Os currently in progress.\n\
                  # TYPE node_disk_io_now gauge\n\
                  node_disk_io_now{device=\"vda\"} 0\n\
                  # HELP diskdash_disk_queue Queue settings.\n\
                  # TYPE diskdash_disk_queue info\n\
                  diskdash_disk_queue_info{device=\"vda\",scheduler=\"none\"} 1\n\
                  # EOF\n";
        let want = "# HELP node_disk_read_bytes_total The total number of bytes read successfully.\n\
                    # TYPE node_disk_read_bytes_total counter\n\
                    node_disk_read_bytes_total{device=\"vda\"} 512\n\
                    # HELP node_disk_io_now The number of I/Os currently in progress.\n\
                    # TYPE node_disk_io_now gauge\n\
                    node_disk_io_now{device=\"vda\"} 0\n\
                    # HELP diskdash_disk_queue_info Queue settings.\n\
                    # TYPE diskdash_disk_queue_info gauge\n\
                    diskdash_disk_queue_info{device=\"vda\",scheduler=\"none\"} 1\n";
        assert_eq!(openmetrics_to_text(om), want);
    }
}
