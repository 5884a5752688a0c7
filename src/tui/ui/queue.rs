//! Queue settings of the disk (sysfs `queue/`), one `name value` pair per row.
//! ```text
//! +- queue vda -------------------+
//! | scheduler      [none]         |
//! |                mq-deadline    |
//! | nr_requests    256            |
//! +-------------------------------+
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::fmt;
use super::theme::Theme;
use crate::tui::view::View;

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(queue) = &view.queue else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let block = Block::bordered()
        .title(format!(" queue {} ", queue.disk))
        .border_style(theme.border(false));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let name_w = queue
        .settings
        .iter()
        .map(|(k, _)| k.len())
        .max()
        .unwrap_or(0)
        + 1;
    let value_w = usize::from(inner.width).saturating_sub(name_w);
    let lines: Vec<Line> = if queue.settings.is_empty() {
        vec![Line::styled("no queue settings in sysfs", theme.dim())]
    } else {
        queue
            .settings
            .iter()
            .flat_map(|(k, v)| {
                // A long value (the scheduler list) wraps under itself instead of being cut.
                fmt::wrap(v, value_w)
                    .into_iter()
                    .enumerate()
                    .map(|(i, part)| {
                        let name = if i == 0 { k.as_str() } else { "" };
                        Line::from(vec![
                            Span::styled(format!("{name:<name_w$}"), theme.label()),
                            Span::styled(part, theme.value()),
                        ])
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    f.render_widget(Paragraph::new(lines), inner);
}
