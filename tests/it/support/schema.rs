//! JSON Schema (draft 2020-12) validation of records against `assets/schema/*.json`, for the
//! keywords those schemas use: `type`, `enum`, `const`, `minimum`, `maximum`,
//! `exclusiveMinimum`, `exclusiveMaximum`, `minLength`, `pattern`, `properties`, `required`,
//! `additionalProperties`, `propertyNames`, `items`, `minItems`, `maxItems`, `allOf`, `anyOf`,
//! `oneOf`, `not`, local `$ref`s (`#/...`) and `$defs`; `title`, `description`, `$id`,
//! `$schema`, `$comment`, `examples` and `default` are annotations. A schema with any other
//! keyword is refused when the validator is made, so a schema can never pass a record
//! because a keyword went unchecked (`tests/it/schema.rs` tests this validator itself).
//!
//! It replaces the `jsonschema` crate, whose 27 crates of its own were an eighth of the test
//! build's compile time for these checks.

use std::collections::HashMap;

use regex::Regex;
use serde_json::{Map, Number, Value};

/// Keywords that say nothing about what is valid.
const ANNOTATIONS: [&str; 7] = [
    "title",
    "description",
    "$id",
    "$schema",
    "$comment",
    "examples",
    "default",
];

/// Keywords checked here.
const CHECKED: [&str; 22] = [
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "pattern",
    "properties",
    "required",
    "additionalProperties",
    "propertyNames",
    "items",
    "minItems",
    "maxItems",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "$ref",
    "$defs",
];

/// A schema checked for the keywords above, its patterns compiled.
pub struct Validator {
    root: Value,
    patterns: HashMap<String, Regex>,
}

/// `schema` as a validator; `Err` names what it cannot check (an unknown keyword, a `$ref`
/// that is not local or points nowhere, a bad pattern or a keyword's value of the wrong kind).
pub fn validator_for(schema: &Value) -> Result<Validator, String> {
    let mut patterns = HashMap::new();
    compile(schema, schema, "#", &mut patterns)?;
    Ok(Validator {
        root: schema.clone(),
        patterns,
    })
}

fn compile(
    root: &Value,
    schema: &Value,
    at: &str,
    patterns: &mut HashMap<String, Regex>,
) -> Result<(), String> {
    let object = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(object) => object,
        other => {
            return Err(format!(
                "{at}: a schema is an object or a boolean, not {other}"
            ));
        }
    };
    for (keyword, value) in object {
        let here = format!("{at}/{keyword}");
        match keyword.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "properties" | "$defs" => {
                let map = value
                    .as_object()
                    .ok_or_else(|| format!("{here}: not an object"))?;
                for (name, sub) in map {
                    compile(root, sub, &format!("{here}/{name}"), patterns)?;
                }
            }
            "additionalProperties" | "propertyNames" | "items" | "not" => {
                compile(root, value, &here, patterns)?;
            }
            "allOf" | "anyOf" | "oneOf" => {
                let list = value
                    .as_array()
                    .filter(|l| !l.is_empty())
                    .ok_or_else(|| format!("{here}: not a list of schemas"))?;
                for (i, sub) in list.iter().enumerate() {
                    compile(root, sub, &format!("{here}/{i}"), patterns)?;
                }
            }
            "$ref" => {
                let target = value
                    .as_str()
                    .ok_or_else(|| format!("{here}: not a string"))?;
                resolve(root, target).map_err(|e| format!("{here}: {e}"))?;
            }
            "pattern" => {
                let text = value
                    .as_str()
                    .ok_or_else(|| format!("{here}: not a string"))?;
                let regex = Regex::new(text).map_err(|e| format!("{here}: {e}"))?;
                patterns.insert(text.to_string(), regex);
            }
            "type" => {
                let names: Vec<&Value> = match value {
                    Value::Array(list) => list.iter().collect(),
                    one => vec![one],
                };
                for name in names {
                    let known = name.as_str().is_some_and(|n| {
                        [
                            "null", "boolean", "object", "array", "number", "string", "integer",
                        ]
                        .contains(&n)
                    });
                    if !known {
                        return Err(format!("{here}: no type {name}"));
                    }
                }
            }
            "enum" | "required" => {
                if !value.is_array() {
                    return Err(format!("{here}: not a list"));
                }
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                if !value.is_number() {
                    return Err(format!("{here}: not a number"));
                }
            }
            "minLength" | "minItems" | "maxItems" => {
                if !value.is_u64() {
                    return Err(format!("{here}: not a count"));
                }
            }
            "const" => {}
            other => {
                debug_assert!(!CHECKED.contains(&other));
                return Err(format!(
                    "{here}: the keyword {other:?} is not checked by this validator \
                     (tests/it/support/schema.rs): add it there, with a test"
                ));
            }
        }
    }
    Ok(())
}

/// The schema a local `$ref` (`#` or `#/a/b`, JSON Pointer escapes included) names.
fn resolve<'a>(root: &'a Value, target: &str) -> Result<&'a Value, String> {
    let pointer = target
        .strip_prefix('#')
        .ok_or_else(|| format!("{target:?} is not a local reference (#/...)"))?;
    root.pointer(pointer)
        .ok_or_else(|| format!("{target:?} names nothing in the schema"))
}

/// Where failures go: each one's message, or (inside `oneOf`, `anyOf` and `not`, where only
/// validity counts) just that there was one, without the cost of the message.
struct Errors {
    messages: Option<Vec<String>>,
    failed: bool,
}

impl Errors {
    fn push(&mut self, message: impl FnOnce() -> String) {
        self.failed = true;
        if let Some(messages) = &mut self.messages {
            messages.push(message());
        }
    }

    /// Nothing more can change the outcome: a failure seen where only validity counts.
    fn settled(&self) -> bool {
        self.failed && self.messages.is_none()
    }
}

/// Where in the instance a check is, rendered (a JSON Pointer) only for a message.
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Root => Ok(()),
            At::Key(up, name) => write!(f, "{up}/{}", escape(name)),
            At::Index(up, i) => write!(f, "{up}/{i}"),
        }
    }
}

/// `value` as JSON, cut to 120 characters: a message names the value, not a whole subtree.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

impl Validator {
    /// Each way `instance` fails the schema, as `message at /instance/path`; empty when it is
    /// valid.
    pub fn errors(&self, instance: &Value) -> Vec<String> {
        let mut errors = Errors {
            messages: Some(Vec::new()),
            failed: false,
        };
        self.check(&self.root, instance, &At::Root, &mut errors);
        errors.messages.unwrap_or_default()
    }

    fn valid(&self, schema: &Value, instance: &Value) -> bool {
        let mut errors = Errors {
            messages: None,
            failed: false,
        };
        self.check(schema, instance, &At::Root, &mut errors);
        !errors.failed
    }

    fn check(&self, schema: &Value, instance: &Value, at: &At, errors: &mut Errors) {
        let object = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                errors.push(|| format!("{} is not allowed at {at}", short(instance)));
                return;
            }
            Value::Object(object) => object,
            _ => unreachable!("checked by validator_for"),
        };
        for (keyword, value) in object {
            if errors.settled() {
                return;
            }
            self.keyword(keyword, value, object, instance, at, errors);
        }
    }

    fn keyword(
        &self,
        keyword: &str,
        value: &Value,
        schema: &Map<String, Value>,
        instance: &Value,
        at: &At,
        errors: &mut Errors,
    ) {
        let mut fail =
            |message: &dyn Fn() -> String| errors.push(|| format!("{} at {at}", message()));
        match keyword {
            "$ref" => {
                let target = resolve(&self.root, value.as_str().unwrap()).unwrap();
                self.check(target, instance, at, errors);
            }
            "type" => {
                let names: Vec<&str> = match value {
                    Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
                    one => vec![one.as_str().unwrap()],
                };
                if !names.iter().any(|name| is_type(instance, name)) {
                    fail(&|| format!("{} is not of type {value}", short(instance)));
                }
            }
            "enum" => {
                if !value.as_array().unwrap().iter().any(|v| equal(v, instance)) {
                    fail(&|| format!("{} is not one of {}", short(instance), short(value)));
                }
            }
            "const" => {
                if !equal(value, instance) {
                    fail(&|| format!("{} is not {}", short(instance), short(value)));
                }
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                if let Value::Number(n) = instance {
                    let order = compare(n, value.as_number().unwrap());
                    let ok = match keyword {
                        "minimum" => order.is_ge(),
                        "maximum" => order.is_le(),
                        "exclusiveMinimum" => order.is_gt(),
                        _ => order.is_lt(),
                    };
                    if !ok {
                        fail(&|| format!("{n} is outside {keyword} {value}"));
                    }
                }
            }
            "minLength" => {
                if let Value::String(s) = instance
                    && (s.chars().count() as u64) < value.as_u64().unwrap()
                {
                    fail(&|| format!("{instance} is shorter than {value}"));
                }
            }
            "pattern" => {
                if let Value::String(s) = instance
                    && !self.patterns[value.as_str().unwrap()].is_match(s)
                {
                    fail(&|| format!("{instance} does not match {value}"));
                }
            }
            "minItems" | "maxItems" => {
                if let Value::Array(list) = instance {
                    let (n, bound) = (list.len() as u64, value.as_u64().unwrap());
                    if (keyword == "minItems" && n < bound) || (keyword == "maxItems" && n > bound)
                    {
                        fail(&|| format!("{n} items, against {keyword} {bound}"));
                    }
                }
            }
            "required" => {
                if let Value::Object(map) = instance {
                    for name in value.as_array().unwrap().iter().filter_map(Value::as_str) {
                        if !map.contains_key(name) {
                            fail(&|| format!("{name:?} is a required property"));
                        }
                    }
                }
            }
            _ => self.applicator(keyword, value, schema, instance, at, errors),
        }
    }

    /// The keywords that apply schemas to the instance or its parts.
    fn applicator(
        &self,
        keyword: &str,
        value: &Value,
        schema: &Map<String, Value>,
        instance: &Value,
        at: &At,
        errors: &mut Errors,
    ) {
        match (keyword, instance) {
            ("properties", Value::Object(map)) => {
                for (name, sub) in value.as_object().unwrap() {
                    if let Some(v) = map.get(name) {
                        self.check(sub, v, &At::Key(at, name), errors);
                    }
                }
            }
            ("additionalProperties", Value::Object(map)) => {
                let declared = schema.get("properties").and_then(Value::as_object);
                for (name, v) in map {
                    if !declared.is_some_and(|d| d.contains_key(name)) {
                        if value == &Value::Bool(false) {
                            errors.push(|| {
                                format!("additional property {name:?} is not allowed at {at}")
                            });
                        } else {
                            self.check(value, v, &At::Key(at, name), errors);
                        }
                    }
                }
            }
            ("propertyNames", Value::Object(map)) => {
                for name in map.keys() {
                    self.check(value, &Value::String(name.clone()), at, errors);
                }
            }
            ("items", Value::Array(list)) => {
                for (i, v) in list.iter().enumerate() {
                    self.check(value, v, &At::Index(at, i), errors);
                }
            }
            ("allOf", _) => {
                for sub in value.as_array().unwrap() {
                    self.check(sub, instance, at, errors);
                }
            }
            ("anyOf" | "oneOf", _) => {
                let subs = value.as_array().unwrap();
                let valid = subs.iter().filter(|s| self.valid(s, instance)).count();
                if valid == 0 || (keyword == "oneOf" && valid > 1) {
                    errors.push(|| {
                        format!(
                            "{} is valid under {valid} of the {keyword} schemas at {at}",
                            short(instance)
                        )
                    });
                }
            }
            ("not", _) if self.valid(value, instance) => {
                errors.push(|| format!("{} is valid under `not` at {at}", short(instance)));
            }
            _ => {}
        }
    }
}

/// A JSON Pointer token of `name` (`~` and `/` escaped).
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn is_type(instance: &Value, name: &str) -> bool {
    match (name, instance) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// JSON Schema's equality: numbers by value (1 is 1.0), objects and arrays member by member.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y).is_eq(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// Numbers by value: exactly when both are integers, as floats otherwise.
fn compare(a: &Number, b: &Number) -> std::cmp::Ordering {
    let int = |n: &Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => {
            let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal)
        }
    }
}
