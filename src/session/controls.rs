//! The session's state machine for controls, pure: what a control does while idle, while a
//! step runs, and while it is already ending (a Stop then a Quit, two changes in a row, a
//! change then Stop). The runner feeds it controls in arrival order and does what it says to
//! the workers; parameter changes are checked by a function it is given (the job validator and
//! the target's rules), so every ordering is unit-tested here without threads or devices.
//!
//! ```text
//!            Start                      Stop | Quit | valid change | runtime | interrupt | fault
//!   Idle ───────────> Running(step) ─────────────────────────────────────────> Ending ──> Idle
//!    ^  change: new job    │ Pause/Resume                                        │  (or next step,
//!    └─────────────────────┘ (workers)            Quit: quit after; change: fold │   or quit)
//! ```

use crate::bench::spec::JobSpec;
use crate::session::Control;

/// Why a step ended.
#[derive(Debug, Clone, PartialEq)]
pub enum StepEnding {
    /// The runtime was over.
    Runtime,
    Stop,
    /// A parameter change: the next step runs this job.
    Change(Box<JobSpec>),
    Quit,
    Interrupt,
    Fault,
    /// Cut short to go on with the next step of the plan.
    Next,
}

/// What the workers of the running step must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workers {
    Continue,
    Pause,
    Resume,
    Stop,
}

/// The controls of one step, folded into how it ends.
#[derive(Debug, Default)]
pub struct StepFold {
    /// How the step ends, once decided.
    pub ending: Option<StepEnding>,
    /// Quit once this step has ended.
    pub quit: bool,
    /// The job to keep when the session goes idle (a change, then Stop before it started).
    pub adopt: Option<JobSpec>,
    /// Controls for the next state (idle or the next step), in arrival order.
    pub held: Vec<Control>,
}

impl StepFold {
    /// A control that arrives while the step runs or ends. `change` checks a parameter change
    /// against a job (`None`: refused; it has said why).
    pub fn control(
        &mut self,
        control: Control,
        current: &JobSpec,
        change: &mut impl FnMut(&JobSpec, &Control) -> Option<JobSpec>,
    ) -> Workers {
        if let Some(ending) = self.ending.take() {
            let ending = self.while_ending(ending, control, change);
            self.ending = Some(ending);
            return Workers::Continue;
        }
        match control {
            Control::Pause => Workers::Pause,
            Control::Resume => Workers::Resume,
            Control::Start => Workers::Continue,
            Control::Stop => self.end_with(StepEnding::Stop),
            Control::Quit => self.end_with(StepEnding::Quit),
            Control::Next => self.end_with(StepEnding::Next),
            change_control => match change(current, &change_control) {
                Some(next) => self.end_with(StepEnding::Change(Box::new(next))),
                None => Workers::Continue,
            },
        }
    }

    /// The session ends the step itself (interrupt, a worker's fault), unless a control
    /// already did. Returns what the workers must do.
    pub fn end(&mut self, ending: StepEnding) -> Workers {
        if self.ending.is_some() {
            Workers::Continue
        } else {
            self.end_with(ending)
        }
    }

    fn end_with(&mut self, ending: StepEnding) -> Workers {
        self.ending = Some(ending);
        Workers::Stop
    }

    /// Quit ends the session after this step, further changes fold into the next job, Stop
    /// after a change keeps the change and goes idle; the rest waits for the next state.
    fn while_ending(
        &mut self,
        ending: StepEnding,
        control: Control,
        change: &mut impl FnMut(&JobSpec, &Control) -> Option<JobSpec>,
    ) -> StepEnding {
        match (ending, control) {
            (ending, Control::Quit) => {
                self.quit = true;
                ending
            }
            (StepEnding::Change(next), Control::Stop) => {
                self.adopt = Some(*next);
                StepEnding::Stop
            }
            (
                StepEnding::Change(next),
                change_control @ (Control::SetIodepth(_)
                | Control::SetNumjobs(_)
                | Control::SetBlockSize(_)
                | Control::SetRw(_)),
            ) => {
                let folded = change(&next, &change_control);
                StepEnding::Change(folded.map_or(next, Box::new))
            }
            (ending, control) => {
                self.held.push(control);
                ending
            }
        }
    }
}

/// What an idle session does with a control.
#[derive(Debug, Clone, PartialEq)]
pub enum IdleStep {
    Start,
    Quit,
    /// Nothing runs to pause, resume or stop; a refused change changes nothing.
    Wait,
    /// The next step runs this job.
    Changed(Box<JobSpec>),
}

/// A control while no step runs.
pub fn idle(
    control: Control,
    current: &JobSpec,
    change: &mut impl FnMut(&JobSpec, &Control) -> Option<JobSpec>,
) -> IdleStep {
    match control {
        Control::Start => IdleStep::Start,
        Control::Quit => IdleStep::Quit,
        Control::Pause | Control::Resume | Control::Stop | Control::Next => IdleStep::Wait,
        change_control => change(current, &change_control)
            .map_or(IdleStep::Wait, |next| IdleStep::Changed(Box::new(next))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Accepts iodepth 1..=64 and numjobs 1..=8, as a validator would; counts refusals.
    fn checker(refused: &mut u32) -> impl FnMut(&JobSpec, &Control) -> Option<JobSpec> + '_ {
        move |job, control| {
            let mut next = job.clone();
            let ok = match *control {
                Control::SetIodepth(n) if (1..=64).contains(&n) => {
                    next.iodepth = n;
                    true
                }
                Control::SetNumjobs(n) if (1..=8).contains(&n) => {
                    next.numjobs = n;
                    true
                }
                _ => false,
            };
            if !ok {
                *refused += 1;
            }
            ok.then_some(next)
        }
    }

    /// Feeds `controls` to a fresh fold of a running step; the workers' orders and the fold.
    fn run(controls: &[Control]) -> (Vec<Workers>, StepFold, u32) {
        let mut refused = 0;
        let mut fold = StepFold::default();
        let job = JobSpec::default();
        let orders = {
            let mut check = checker(&mut refused);
            controls
                .iter()
                .map(|c| fold.control(c.clone(), &job, &mut check))
                .collect()
        };
        (orders, fold, refused)
    }

    fn depth(ending: Option<&StepEnding>) -> Option<u32> {
        match ending {
            Some(StepEnding::Change(job)) => Some(job.iodepth),
            _ => None,
        }
    }

    #[test]
    fn next_ends_the_running_step_and_waits_when_idle() {
        let (orders, fold, _) = run(&[Control::Next, Control::Next]);
        assert_eq!(orders, [Workers::Stop, Workers::Continue]);
        assert_eq!(fold.ending, Some(StepEnding::Next));
        // The second waits for the next step.
        assert_eq!(fold.held, [Control::Next]);
        let job = JobSpec::default();
        let mut check = |_: &JobSpec, _: &Control| None;
        assert_eq!(idle(Control::Next, &job, &mut check), IdleStep::Wait);
    }

    #[test]
    fn pause_and_resume_go_to_the_workers_and_end_nothing() {
        let (orders, fold, _) = run(&[Control::Pause, Control::Resume, Control::Start]);
        assert_eq!(orders, [Workers::Pause, Workers::Resume, Workers::Continue]);
        assert_eq!(fold.ending, None);
    }

    #[test]
    fn stop_then_quit_stops_once_and_quits_after() {
        let (orders, fold, _) = run(&[Control::Stop, Control::Quit]);
        assert_eq!(orders, [Workers::Stop, Workers::Continue]);
        assert_eq!(fold.ending, Some(StepEnding::Stop));
        assert!(fold.quit);
    }

    #[test]
    fn quit_while_running_ends_the_step_as_quit() {
        let (orders, fold, _) = run(&[Control::Quit]);
        assert_eq!(orders, [Workers::Stop]);
        assert_eq!(fold.ending, Some(StepEnding::Quit));
    }

    #[test]
    fn changes_in_a_row_fold_into_one_next_job() {
        let (orders, fold, _) = run(&[
            Control::SetIodepth(4),
            Control::SetNumjobs(2),
            Control::SetIodepth(8),
        ]);
        assert_eq!(
            orders,
            [Workers::Stop, Workers::Continue, Workers::Continue]
        );
        let Some(StepEnding::Change(job)) = &fold.ending else {
            panic!("{:?}", fold.ending)
        };
        assert_eq!((job.iodepth, job.numjobs), (8, 2));
        assert!(fold.held.is_empty());
    }

    #[test]
    fn a_refused_change_changes_nothing_and_a_refused_fold_keeps_the_first() {
        let (orders, fold, refused) = run(&[Control::SetIodepth(1000)]);
        assert_eq!(orders, [Workers::Continue]);
        assert_eq!((fold.ending, refused), (None, 1));
        let (_, fold, refused) = run(&[Control::SetIodepth(4), Control::SetIodepth(1000)]);
        assert_eq!((depth(fold.ending.as_ref()), refused), (Some(4), 1));
    }

    #[test]
    fn a_change_then_stop_keeps_the_change_and_goes_idle() {
        let (_, fold, _) = run(&[Control::SetIodepth(16), Control::Stop]);
        assert_eq!(fold.ending, Some(StepEnding::Stop));
        assert_eq!(fold.adopt.map(|j| j.iodepth), Some(16));
    }

    #[test]
    fn what_cannot_act_while_ending_waits_in_order() {
        let (_, fold, _) = run(&[
            Control::Stop,
            Control::Start,
            Control::Pause,
            Control::SetIodepth(4),
        ]);
        assert_eq!(fold.ending, Some(StepEnding::Stop));
        assert_eq!(
            fold.held,
            [Control::Start, Control::Pause, Control::SetIodepth(4)]
        );
    }

    #[test]
    fn interrupts_and_faults_end_only_a_step_nothing_ended_yet() {
        let mut fold = StepFold::default();
        assert_eq!(fold.end(StepEnding::Interrupt), Workers::Stop);
        assert_eq!(fold.end(StepEnding::Fault), Workers::Continue);
        assert_eq!(fold.ending, Some(StepEnding::Interrupt));
        let (_, mut stopped, _) = run(&[Control::Stop]);
        assert_eq!(stopped.end(StepEnding::Interrupt), Workers::Continue);
        assert_eq!(stopped.ending, Some(StepEnding::Stop));
        // A quit after an interrupt still quits.
        let mut refused = 0;
        let job = JobSpec::default();
        fold.control(Control::Quit, &job, &mut checker(&mut refused));
        assert!(fold.quit);
    }

    #[test]
    fn idle_starts_quits_waits_and_takes_changes() {
        let mut refused = 0;
        let job = JobSpec::default();
        let mut check = checker(&mut refused);
        assert_eq!(idle(Control::Start, &job, &mut check), IdleStep::Start);
        assert_eq!(idle(Control::Quit, &job, &mut check), IdleStep::Quit);
        for control in [Control::Pause, Control::Resume, Control::Stop] {
            assert_eq!(idle(control, &job, &mut check), IdleStep::Wait);
        }
        let IdleStep::Changed(next) = idle(Control::SetNumjobs(4), &job, &mut check) else {
            panic!("a valid change while idle is taken")
        };
        assert_eq!(next.numjobs, 4);
        assert_eq!(
            idle(Control::SetNumjobs(99), &job, &mut check),
            IdleStep::Wait
        );
        drop(check);
        assert_eq!(refused, 1);
    }
}
