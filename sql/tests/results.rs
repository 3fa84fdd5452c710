//! How results print: a column without an alias is headed by its select
//! item as the query wrote it (not DataFusion's plan of it), and a nested
//! value (a list, a struct) prints as JSON in every format: its JSON text
//! in a CSV or table cell, a JSON value in `--format json`.

mod util;

use util::Fixture;

/// The standard output of `tg-sql ARGS` (it must succeed).
fn stdout(fx: &Fixture, args: &[&str]) -> String {
    let out = fx.sql_output(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn issue_0039_lists_print_as_json_and_columns_as_written() {
    let fx = Fixture::new();
    let log = fx.write("app.log", b"vol-1a2b ok \"quoted\"\nno volume here\n");
    let query = format!(
        "SELECT substr(line, 1, 8), regexp_match(line, 'vol-(\\w+)') AS m, \
         regexp_match(line, 'vol-(\\w+)')[1], named_struct('n', line_number, 'w', \
         string_to_array(line, ' ')) AS s, line_number \
         FROM lines('{}') ORDER BY line_number",
        log.display()
    );
    let csv = stdout(&fx, &["--format", "csv", &query]);
    let expected = concat!(
        r#""substr(line, 1, 8)",m,"regexp_match(line, 'vol-(\w+)')[1]",s,line_number"#,
        "\n",
        r#"vol-1a2b,"[""1a2b""]",1a2b,"{""n"":1,""w"":[""vol-1a2b"",""ok"",""\""quoted\""""]}",1"#,
        "\n",
        r#"no volum,,,"{""n"":2,""w"":[""no"",""volume"",""here""]}",2"#,
        "\n",
    );
    assert_eq!(csv, expected);
    let table = stdout(&fx, &["--format", "table", &query]);
    let header = table.lines().nth(1).unwrap();
    assert!(header.contains("| substr(line, 1, 8) |"), "{table}");
    assert!(header.contains(r"| regexp_match(line, 'vol-(\w+)')[1] |"), "{table}");
    assert!(table.contains(r#"| ["1a2b"] "#), "{table}");
    assert!(table.contains(r#"{"n":2,"w":["no","volume","here"]}"#), "{table}");
    let json = stdout(&fx, &["--format", "json", &query]);
    let first: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(first["m"], serde_json::json!(["1a2b"]), "{json}");
    assert_eq!(first["substr(line, 1, 8)"], "vol-1a2b", "{json}");
    assert_eq!(first["s"]["w"][2], "\"quoted\"", "{json}");
    // A wildcard keeps DataFusion's names: they map no item to a column.
    let star = stdout(
        &fx,
        &["--format", "csv", &format!("SELECT * FROM lines('{}') LIMIT 0", log.display())],
    );
    assert_eq!(star, "path,line_number,byte_offset,line,modified,time,level,host\n");
}
