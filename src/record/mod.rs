//! The run record: serde DTOs (RunRecord, IntervalRecord), apart from engine types; writers.
