//! The suite's JSON Schema validator (`support::schema`): every schema of `assets/schema`
//! compiles (no keyword left unchecked), each keyword refuses what it must and takes what it
//! may, and a real record passes while its broken copies fail at the broken place.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::read_json;
use crate::support::schema::validator_for;

fn errors(schema: Value, instance: Value) -> Vec<String> {
    validator_for(&schema)
        .unwrap_or_else(|e| panic!("{schema}: {e}"))
        .errors(&instance)
}

fn assert_valid(schema: Value, instance: Value) {
    let got = errors(schema.clone(), instance.clone());
    assert!(got.is_empty(), "{instance} under {schema}: {got:?}");
}

/// Fails unless `instance` is invalid under `schema` with one error holding `want`.
fn assert_invalid(schema: Value, instance: Value, want: &str) {
    let got = errors(schema.clone(), instance.clone());
    assert_eq!(got.len(), 1, "{instance} under {schema}: {got:?}");
    assert!(got[0].contains(want), "{want:?} in {got:?}");
}

#[test]
fn every_schema_of_the_project_compiles() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/schema");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            validator_for(&read_json(&path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            n += 1;
        }
    }
    assert!(n >= 4, "{n} schemas in {}", dir.display());
}

#[test]
fn a_keyword_it_does_not_check_a_foreign_ref_or_a_bad_pattern_is_refused() {
    for (schema, want) in [
        (json!({"format": "date-time"}), "the keyword \"format\""),
        (
            json!({"properties": {"a": {"uniqueItems": true}}}),
            "#/properties/a/uniqueItems",
        ),
        (json!({"$ref": "other.json#/x"}), "not a local reference"),
        (json!({"$ref": "#/$defs/none"}), "names nothing"),
        (json!({"pattern": "("}), "#/pattern"),
        (json!({"type": "float"}), "no type"),
        (json!(7), "a schema is an object or a boolean"),
    ] {
        let err = validator_for(&schema)
            .err()
            .unwrap_or_else(|| panic!("{schema} compiled"));
        assert!(err.contains(want), "{want:?} in {err}");
    }
}

#[test]
fn types_integers_and_numbers_by_value() {
    assert_valid(json!({"type": "integer"}), json!(3));
    assert_valid(json!({"type": "integer"}), json!(3.0));
    assert_valid(json!({"type": "integer"}), json!(-3));
    assert_invalid(json!({"type": "integer"}), json!(3.5), "not of type");
    assert_valid(json!({"type": "number"}), json!(3.5));
    assert_invalid(json!({"type": "number"}), json!("3"), "not of type");
    assert_valid(json!({"type": ["string", "null"]}), json!(null));
    assert_invalid(
        json!({"type": ["string", "null"]}),
        json!(false),
        "not of type",
    );
    for (name, good, bad) in [
        ("boolean", json!(true), json!(1)),
        ("object", json!({}), json!([])),
        ("array", json!([]), json!({})),
        ("string", json!(""), json!(null)),
        ("null", json!(null), json!(0)),
    ] {
        assert_valid(json!({"type": name}), good);
        assert_invalid(json!({"type": name}), bad, "not of type");
    }
    assert_valid(json!({"enum": [1, "a"]}), json!(1.0));
    assert_invalid(json!({"enum": [1, "a"]}), json!("b"), "not one of");
    assert_valid(json!({"const": {"a": [1]}}), json!({"a": [1.0]}));
    assert_invalid(json!({"const": {"a": [1]}}), json!({"a": [2]}), "is not");
}

#[test]
fn bounds_lengths_and_patterns() {
    assert_valid(json!({"minimum": 0}), json!(0));
    assert_invalid(json!({"minimum": 0}), json!(-1), "minimum");
    assert_valid(json!({"minimum": 0}), json!("not a number: not bounded"));
    assert_invalid(json!({"maximum": 100}), json!(100.5), "maximum");
    assert_invalid(json!({"exclusiveMinimum": 0}), json!(0), "exclusiveMinimum");
    assert_valid(json!({"exclusiveMinimum": 0}), json!(0.001));
    assert_invalid(json!({"exclusiveMaximum": 1}), json!(1), "exclusiveMaximum");
    // Integers compare exactly past 2^53.
    assert_invalid(
        json!({"maximum": 9007199254740992_u64}),
        json!(9007199254740993_u64),
        "maximum",
    );
    assert_valid(json!({"minimum": 0}), json!(u64::MAX));
    assert_invalid(json!({"minLength": 2}), json!("é"), "shorter");
    assert_valid(json!({"minLength": 2}), json!("éé"));
    assert_valid(json!({"pattern": "^[0-9a-f]{4}$"}), json!("0a1f"));
    assert_invalid(
        json!({"pattern": "^[0-9a-f]{4}$"}),
        json!("0a1g"),
        "does not match",
    );
    // Unanchored, as ECMA-262's search.
    assert_valid(json!({"pattern": "b"}), json!("abc"));
    assert_invalid(json!({"minItems": 1}), json!([]), "minItems");
    assert_invalid(json!({"maxItems": 1}), json!([1, 2]), "maxItems");
    assert_valid(json!({"maxItems": 1}), json!([1]));
}

#[test]
fn objects_arrays_and_combinations_with_the_failing_path() {
    let schema = json!({
        "type": "object",
        "required": ["a"],
        "properties": {"a": {"type": "integer"}, "b/c": {"items": {"type": "string"}}},
        "additionalProperties": false,
    });
    assert_valid(schema.clone(), json!({"a": 1, "b/c": ["x"]}));
    assert_invalid(
        schema.clone(),
        json!({}),
        "\"a\" is a required property at ",
    );
    assert_invalid(
        schema.clone(),
        json!({"a": 1, "z": 0}),
        "additional property \"z\"",
    );
    assert_invalid(
        schema.clone(),
        json!({"a": 1, "b/c": ["x", 2]}),
        "at /b~1c/1",
    );
    let open = json!({"properties": {"a": true}, "additionalProperties": {"type": "integer"}});
    assert_valid(open.clone(), json!({"a": "x", "n": 2}));
    assert_invalid(open, json!({"a": "x", "n": "2"}), "at /n");
    assert_invalid(
        json!({"propertyNames": {"pattern": "^[a-z]+$"}}),
        json!({"ok": 1, "NO": 2}),
        "\"NO\" does not match",
    );
    let defs = json!({"$defs": {"n": {"type": "integer", "minimum": 1}}, "$ref": "#/$defs/n"});
    assert_valid(defs.clone(), json!(2));
    assert_invalid(defs, json!(0), "minimum");
    let one = json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]});
    assert_valid(one.clone(), json!(-1));
    assert_valid(one.clone(), json!(0.5));
    assert_invalid(one.clone(), json!(1), "valid under 2 of the oneOf");
    assert_invalid(one, json!(-0.5), "valid under 0 of the oneOf");
    let any = json!({"anyOf": [{"type": "integer"}, {"minimum": 0}]});
    assert_valid(any.clone(), json!(1));
    assert_invalid(any, json!(-0.5), "valid under 0 of the anyOf");
    assert_invalid(
        json!({"allOf": [{"minimum": 0}, {"maximum": 1}]}),
        json!(2),
        "maximum",
    );
    assert_invalid(json!({"not": {"type": "null"}}), json!(null), "`not`");
    assert_invalid(json!(false), json!(1), "not allowed");
    assert_valid(json!(true), json!(1));
}

/// A real run's record passes; each broken copy fails, naming where.
#[test]
fn a_record_passes_and_its_broken_copies_fail_where_they_are_broken() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema = read_json(&root.join("assets/schema/run-record.schema.json"));
    let validator = validator_for(&schema).unwrap();
    let record = null_record();
    assert_eq!(validator.errors(&record), Vec::<String>::new());
    type Damage = fn(&mut Value);
    let breaks: [(&str, Damage); 4] = [
        ("/read/total_ios", |r| {
            r["read"]["total_ios"] = json!("many")
        }),
        ("additional property \"nonsense\"", |r| {
            r["nonsense"] = json!(1);
        }),
        ("\"status\" is a required property", |r| {
            r.as_object_mut().unwrap().remove("status");
        }),
        ("/status", |r| r["status"] = json!("exploded")),
    ];
    for (want, damage) in breaks {
        let mut broken = record.clone();
        damage(&mut broken);
        let got = validator.errors(&broken);
        assert!(got.iter().any(|e| e.contains(want)), "{want:?} in {got:?}");
    }
}

/// The record of a real null-engine run of reads and writes, 300 ms in three intervals.
pub fn null_record() -> Value {
    let dir = tempfile::tempdir().unwrap();
    let opts = "--ioengine null --rw randrw --size 1M --runtime 300ms --interval 100ms --no-tui";
    crate::support::record::bench_ok(dir.path(), &crate::support::record::args(dir.path(), opts)).1
}
