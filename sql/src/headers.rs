//! The names of a result's columns as the user wrote them. DataFusion
//! names a select item without an alias after its plan
//! (`substr(lines().line,Int64(1),Int64(60))`); here such a column is
//! named by the item's SQL, read back from the parsed query
//! (`SUBSTR(line, 1, 60)`: sqlparser writes its special forms, such as
//! `SUBSTR`, `CAST` and `EXTRACT`, in capitals). Columns, aliases and anything that does not
//! map one item to one column (a wildcard, a set operation) keep
//! DataFusion's names.

use datafusion::sql::parser::{DFParser, Statement as DfStatement};
use datafusion::sql::sqlparser::ast::{Expr, SelectItem, SetExpr, Statement};

/// The name each select item of `sql` gives its column, in order:
/// `Some(text)` for an expression without an alias, `None` where
/// DataFusion's name stands. `None` overall when the columns cannot be
/// told apart by select item: not one `SELECT`, a wildcard, or two items
/// written alike.
pub fn written(sql: &str) -> Option<Vec<Option<String>>> {
    let mut statements = DFParser::parse_sql(sql).ok()?;
    let (Some(DfStatement::Statement(statement)), None) =
        (statements.pop_front(), statements.pop_front())
    else {
        return None;
    };
    let Statement::Query(query) = *statement else { return None };
    let SetExpr::Select(select) = *query.body else { return None };
    let names = select
        .projection
        .iter()
        .map(|item| match item {
            SelectItem::UnnamedExpr(Expr::Identifier(_) | Expr::CompoundIdentifier(_)) => {
                Some(None)
            }
            SelectItem::UnnamedExpr(e) => Some(Some(e.to_string())),
            SelectItem::ExprWithAlias { .. } => Some(None),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let mut written: Vec<&String> = names.iter().flatten().collect();
    written.sort();
    let before = written.len();
    written.dedup();
    (written.len() == before).then_some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unnamed_expressions_are_named_as_written() {
        let names = written(
            "SELECT path, substr(line, 1, 60), count(*) AS n, \
             regexp_match(line, 'vol-(\\w+)')[1], t.line FROM lines('x') t",
        );
        let expected = vec![
            None,
            Some("SUBSTR(line, 1, 60)".to_string()),
            None,
            Some("regexp_match(line, 'vol-(\\w+)')[1]".to_string()),
            None,
        ];
        assert_eq!(names, Some(expected));
    }

    #[test]
    fn what_does_not_map_item_to_column_keeps_datafusion_names() {
        assert_eq!(written("SELECT * FROM lines('x')"), None);
        assert_eq!(written("SELECT length(line), t.* FROM lines('x') t"), None);
        assert_eq!(written("SELECT 1 UNION ALL SELECT 2"), None);
        assert_eq!(written("SELECT 1; SELECT 2"), None);
        assert_eq!(written("SELECT length(line), length(line) FROM t"), None);
        assert_eq!(written("this is not sql"), None);
    }
}
