//! placeholder until the report lands
use crate::record::RunRecord;
pub struct FioReport<'a> {
    pub group_reporting: bool,
    pub percentiles: Option<&'a [f64]>,
}
pub fn text(record: &RunRecord, _o: &FioReport<'_>) -> String {
    crate::report::bench::summary(record)
}
pub fn json(record: &RunRecord, _o: &FioReport<'_>) -> RunRecord {
    record.clone()
}
