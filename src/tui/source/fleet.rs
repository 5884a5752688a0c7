//! The live fleet source (`diskdash fleet` in a terminal): the controller runs the hosts on its
//! own threads and keeps the live fleet in a watch channel; each change (a host's state, an
//! interval of the fleet) wakes the dashboard, and the clock ticks the elapsed time once a
//! second. The hosts are the jobs of the view: `tab` and the arrows pick the one the charts
//! show.

use std::time::Duration;

use tokio::sync::watch;

use crate::fleet::live::LiveFleet;
use crate::tui::app::{App, Intent};
use crate::tui::event::Source;
use crate::tui::view::{View, from_fleet};

/// How often the header's elapsed time moves when nothing else does.
const TICK: Duration = Duration::from_secs(1);

pub struct FleetSource {
    live: watch::Receiver<LiveFleet>,
    /// The controller is gone (its sender dropped): only the clock is left to wait for.
    closed: bool,
}

impl FleetSource {
    #[must_use]
    pub fn new(live: watch::Receiver<LiveFleet>) -> Self {
        Self {
            live,
            closed: false,
        }
    }
}

impl Source for FleetSource {
    async fn next(&mut self) {
        tokio::select! {
            changed = self.live.changed(), if !self.closed => {
                if changed.is_err() {
                    self.closed = true;
                }
            }
            () = tokio::time::sleep(TICK) => {}
        }
    }

    fn view(&mut self, app: &mut App) -> View {
        let live = self.live.borrow_and_update();
        app.set_jobs(live.hosts.iter().map(|h| h.name.as_str()));
        let selected = app
            .job
            .as_deref()
            .and_then(|name| live.hosts.iter().position(|h| h.name == name));
        let elapsed = live.elapsed(std::time::Instant::now());
        from_fleet::view(&live, selected, app.ui.clone(), elapsed)
    }

    fn control(&mut self, _intent: Intent) -> Option<String> {
        Some("every host runs the same fixed command: q stops them all".into())
    }
}
