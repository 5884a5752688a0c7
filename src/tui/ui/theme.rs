//! Styles from the 16 named colours; with `NO_COLOR` only bold/reverse/dim remain.

use ratatui::style::{Color, Modifier, Style};

use crate::tui::view::WarningKind;

/// The styles the panels use. `Theme::new(false)` is the `NO_COLOR` theme.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    color: bool,
}

impl Theme {
    #[must_use]
    pub fn new(color: bool) -> Self {
        Self { color }
    }

    fn pick(self, color: Color, fallback: Style) -> Style {
        if self.color {
            Style::default().fg(color)
        } else {
            fallback
        }
    }

    #[must_use]
    pub fn read(self) -> Style {
        self.pick(Color::Cyan, Style::default())
    }

    #[must_use]
    pub fn write(self) -> Style {
        self.pick(
            Color::Magenta,
            Style::default().add_modifier(Modifier::BOLD),
        )
    }

    /// Trims (discards): neither reads nor writes.
    #[must_use]
    pub fn trim(self) -> Style {
        self.pick(
            Color::Green,
            Style::default().add_modifier(Modifier::ITALIC),
        )
    }

    #[must_use]
    pub fn label(self) -> Style {
        self.pick(Color::Gray, Style::default())
    }

    #[must_use]
    pub fn dim(self) -> Style {
        self.pick(
            Color::DarkGray,
            Style::default().add_modifier(Modifier::DIM),
        )
    }

    #[must_use]
    pub fn value(self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }

    #[must_use]
    pub fn title_bar(self) -> Style {
        if self.color {
            Style::default().fg(Color::Black).bg(Color::Cyan)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }

    #[must_use]
    pub fn border(self, focused: bool) -> Style {
        match (focused, self.color) {
            (true, true) => Style::default().fg(Color::LightCyan),
            (true, false) => Style::default().add_modifier(Modifier::BOLD),
            (false, true) => Style::default().fg(Color::DarkGray),
            (false, false) => Style::default(),
        }
    }

    #[must_use]
    pub fn selected(self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }

    /// The `i`-th line of a chart of several lines (the sweep's); without colour the legend
    /// tells them apart.
    #[must_use]
    pub fn series(self, i: usize) -> Style {
        const COLORS: [Color; 6] = [
            Color::Cyan,
            Color::Magenta,
            Color::Green,
            Color::Yellow,
            Color::LightBlue,
            Color::LightRed,
        ];
        self.pick(COLORS[i % COLORS.len()], Style::default())
    }

    #[must_use]
    pub fn marker(self) -> Style {
        self.pick(Color::Yellow, Style::default())
    }

    #[must_use]
    pub fn good(self) -> Style {
        self.pick(Color::Green, Style::default())
    }

    #[must_use]
    pub fn warn(self) -> Style {
        self.pick(Color::Yellow, Style::default().add_modifier(Modifier::BOLD))
    }

    #[must_use]
    pub fn error(self) -> Style {
        if self.color {
            Style::default()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        }
    }

    #[must_use]
    pub fn warning(self, kind: WarningKind) -> Style {
        match kind {
            WarningKind::PageCache | WarningKind::DeviceGone | WarningKind::Error => self.error(),
            WarningKind::FallbackEngine | WarningKind::UtilCaveat => self.warn(),
            WarningKind::Note => self.label(),
        }
    }
}
