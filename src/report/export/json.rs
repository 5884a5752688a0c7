//! The grid as JSON: an array of objects, one a row of cells, keyed by the columns' names
//! (and the notes column when the grid names one). A cell that is a JSON number is written as
//! a number, any other as a string, an empty cell as `null`.

use serde_json::Value;

use super::{Exporter, Grid};

pub struct Json;

fn value(cell: &str) -> Value {
    if cell.is_empty() {
        return Value::Null;
    }
    match serde_json::from_str::<serde_json::Number>(cell) {
        Ok(number) => Value::Number(number),
        Err(_) => Value::String(cell.to_string()),
    }
}

/// `"key": value`, JSON-quoted.
fn member(key: &str, value: &Value) -> String {
    let key = Value::String(key.to_string());
    format!("    {key}: {value}")
}

impl Exporter for Json {
    /// Written by hand so each object keeps the columns' order (a `serde_json` map sorts).
    fn render(&self, grid: &Grid) -> String {
        let names = grid.names();
        let objects: Vec<String> = grid
            .cell_rows()
            .map(|(cells, note)| {
                let mut members: Vec<String> = names
                    .iter()
                    .zip(cells)
                    .map(|(name, cell)| member(name, &value(cell)))
                    .collect();
                if let Some(column) = &grid.notes {
                    let note = note.map_or(Value::Null, |n| Value::String(n.to_string()));
                    members.push(member(column, &note));
                }
                format!("  {{\n{}\n  }}", members.join(",\n"))
            })
            .collect();
        if objects.is_empty() {
            return "[]\n".to_string();
        }
        format!("[\n{}\n]\n", objects.join(",\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn an_object_per_row_keyed_by_the_header() {
        let text = Json.render(&sample());
        let rows: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(rows.len(), 2, "the line among the rows is no data: {text}");
        assert_eq!(
            rows[0],
            serde_json::json!({
                "host": "a|b", "IOPS": 1500, "p99": "1.2 ms", "state": "ok",
                "notes": "said \"so\", twice"
            })
        );
        assert_eq!(
            rows[1],
            serde_json::json!({
                "host": "c,d", "IOPS": 12, "p99": null, "state": "line\nbreak", "notes": null
            })
        );
        assert!(
            text.starts_with("[\n  {\n    \"host\": \"a|b\",\n    \"IOPS\": 1500,"),
            "{text}"
        );
        assert_eq!(Json.render(&Grid::new(Vec::new())), "[]\n");
        assert_eq!(value("-1.5e3"), serde_json::json!(-1500.0));
        assert_eq!(value("0x10"), serde_json::json!("0x10"));
    }
}
