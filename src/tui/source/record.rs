//! The recorded-run source: nothing changes after the first frame, so nothing is redrawn
//! unless a key or a resize asks for it.

use crate::record::RunRecord;
use crate::tui::app::{App, Intent};
use crate::tui::event::Source;
use crate::tui::view::View;
use crate::tui::view::from_record;

pub struct ShowSource {
    record: RunRecord,
}

impl ShowSource {
    #[must_use]
    pub fn new(record: RunRecord) -> Self {
        Self { record }
    }
}

impl Source for ShowSource {
    async fn next(&mut self) {
        std::future::pending::<()>().await;
    }

    fn view(&mut self, app: &mut App) -> View {
        let names = self.record.steps.last().map(|s| &s.jobs);
        app.set_jobs(names.into_iter().flatten().map(|j| j.name.as_str()));
        from_record::view_of_job(&self.record, app.ui.clone(), app.job.as_deref())
    }

    fn control(&mut self, _intent: Intent) -> Option<String> {
        None
    }
}
