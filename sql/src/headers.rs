//! The names of a result's columns as the user wrote them. DataFusion
//! names a select item without an alias after its plan
//! (`substr(lines().line,Int64(1),Int64(60))`); here such a column is
//! named by the item's own text in the query (`substr(line,1,60)`), cut
//! from the query at the select list's top-level commas (sqlparser's
//! tokens say where). Where the text cannot be cut item by item, the
//! parsed item's SQL stands in (sqlparser writes special forms such as
//! `SUBSTR` and `CAST` in capitals). Columns, aliases and anything that
//! does not map one item to one column (a wildcard, a set operation) keep
//! DataFusion's names.

use datafusion::sql::parser::{DFParser, Statement as DfStatement};
use datafusion::sql::sqlparser::ast::{Expr, SelectItem, SetExpr, Statement};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::{Location, Token, Tokenizer};

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
    let texts = item_texts(sql).filter(|t| t.len() == select.projection.len());
    let names = select
        .projection
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            SelectItem::UnnamedExpr(Expr::Identifier(_) | Expr::CompoundIdentifier(_)) => {
                Some(None)
            }
            SelectItem::UnnamedExpr(e) => {
                Some(Some(texts.as_ref().map_or_else(|| e.to_string(), |t| t[i].to_string())))
            }
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

/// The text of each item of the outer `SELECT`'s list in `sql`, as
/// written: the list runs from that `SELECT` (and a `DISTINCT` or `ALL`
/// after it) to the clause that ends it, and is cut at its commas outside
/// brackets. `None` when the query cannot be read that way.
fn item_texts(sql: &str) -> Option<Vec<&str>> {
    let tokens = Tokenizer::new(&GenericDialect {}, sql).tokenize_with_location().ok()?;
    let mut depth = 0usize;
    let mut items = Vec::new();
    let mut start: Option<usize> = None;
    for t in tokens.iter().filter(|t| !matches!(t.token, Token::Whitespace(_))) {
        let at = byte_at(sql, t.span.start);
        match (&t.token, start) {
            (Token::LParen | Token::LBracket, _) => depth += 1,
            (Token::RParen | Token::RBracket, _) => depth = depth.checked_sub(1)?,
            (Token::Word(w), None) if depth == 0 && w.keyword == Keyword::SELECT => {
                start = Some(at? + "select".len());
                continue;
            }
            _ => {}
        }
        let Some(from) = start else { continue };
        let ends_list = depth == 0
            && match &t.token {
                Token::Word(w) => CLAUSES.contains(&w.keyword),
                Token::SemiColon | Token::EOF => true,
                _ => false,
            };
        if depth == 0 && (ends_list || t.token == Token::Comma) {
            items.push(sql.get(from..at?)?.trim());
            if ends_list {
                start = None;
                break;
            }
            start = Some(at? + 1);
        }
    }
    if let Some(from) = start {
        items.push(sql.get(from..)?.trim());
    }
    let first = items.first_mut()?;
    for word in ["DISTINCT", "ALL"] {
        let head = first.get(..word.len()).filter(|h| h.eq_ignore_ascii_case(word));
        if head.is_some() && first[word.len()..].starts_with(char::is_whitespace) {
            *first = first[word.len()..].trim_start();
        }
    }
    items.iter().all(|i| !i.is_empty()).then_some(items)
}

/// The keywords that end a select list.
const CLAUSES: &[Keyword] = &[
    Keyword::FROM,
    Keyword::WHERE,
    Keyword::GROUP,
    Keyword::HAVING,
    Keyword::WINDOW,
    Keyword::QUALIFY,
    Keyword::ORDER,
    Keyword::LIMIT,
    Keyword::OFFSET,
    Keyword::UNION,
    Keyword::EXCEPT,
    Keyword::INTERSECT,
    Keyword::INTO,
];

/// The byte offset in `sql` of a token's location (lines and columns
/// count from 1, columns in characters).
fn byte_at(sql: &str, at: Location) -> Option<usize> {
    let (line, column) = (usize::try_from(at.line).ok()?, usize::try_from(at.column).ok()?);
    let line_start: usize =
        sql.split_inclusive('\n').take(line.checked_sub(1)?).map(str::len).sum();
    let rest = sql.get(line_start..)?;
    let column = column.checked_sub(1)?;
    match rest.char_indices().nth(column) {
        Some((i, _)) => Some(line_start + i),
        None => (rest.chars().count() == column).then_some(sql.len()),
    }
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
            Some("substr(line, 1, 60)".to_string()),
            None,
            Some("regexp_match(line, 'vol-(\\w+)')[1]".to_string()),
            None,
        ];
        assert_eq!(names, Some(expected));
    }

    #[test]
    fn items_keep_their_spelling_spacing_and_lines() {
        let names = |sql| written(sql).unwrap().into_iter().flatten().collect::<Vec<_>>();
        assert_eq!(names("select substr(line,1,60) from lines('x')"), ["substr(line,1,60)"]);
        assert_eq!(
            names("SELECT DISTINCT Upper( line ),\n  CAST(x AS INT) FROM t"),
            ["Upper( line )", "CAST(x AS INT)"]
        );
        assert_eq!(names("SELECT 'é, ü', [1, 2][1] FROM t"), ["'é, ü'", "[1, 2][1]"]);
        let cte = "WITH a AS (SELECT length(l) FROM t) SELECT max(x), 'a,b' FROM a";
        assert_eq!(names(cte), ["max(x)", "'a,b'"]);
        assert_eq!(names("SELECT 1 + 2, length('x')"), ["1 + 2", "length('x')"]);
        assert_eq!(names("SELECT count(*)\nFROM t -- c, d"), ["count(*)"]);
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
