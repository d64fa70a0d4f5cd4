//! The columns of the results tables, declared with the result structs themselves.
//!
//! A result row (a flow's, a group's, a link's) is a struct in [`results`](crate::results)
//! declared through `result_row!`: each field's name, type and doc comment are also one
//! entry of the struct's `COLUMNS`, which the catalog exports (`result_columns`) and from
//! which the Python side builds the tables' schemas and the documentation's column
//! reference. A field added to a result struct is therefore a stored, documented column,
//! with nothing else to edit. The unit follows from the name's suffix ([`unit_of`]).

use serde::Serialize;

/// One column of a results table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Column {
    /// The field's and the column's name.
    pub name: &'static str,
    /// The stored type: `int64`, `float64`, `string`, `bool`, or `int64_by_reason` (a map
    /// stored as one `int64` column per reason of the catalog's list: `drops_by_reason` as
    /// `drops_<reason>`).
    pub dtype: &'static str,
    /// The unit, from the name ([`unit_of`]); empty for a count, name or fraction.
    pub unit: &'static str,
    /// The field's doc comment, its lines joined.
    pub doc: &'static str,
}

/// How a Rust field type is stored.
pub trait ColumnType {
    /// The stored type (see [`Column::dtype`]).
    const DTYPE: &'static str;
}

macro_rules! column_type {
    ($($ty:ty => $dtype:literal),+ $(,)?) => {
        $(impl ColumnType for $ty {
            const DTYPE: &'static str = $dtype;
        })+
    };
}

column_type!(
    u32 => "int64",
    u64 => "int64",
    i64 => "int64",
    f64 => "float64",
    String => "string",
    &'static str => "string",
    bool => "bool",
);

impl ColumnType for std::collections::BTreeMap<String, u64> {
    const DTYPE: &'static str = "int64_by_reason";
}

/// A missing value is a null of the same column.
impl<T: ColumnType> ColumnType for Option<T> {
    const DTYPE: &'static str = T::DTYPE;
}

/// A series' column: one row per element.
impl<T: ColumnType> ColumnType for Vec<T> {
    const DTYPE: &'static str = T::DTYPE;
}

/// Returns the unit a column's name states: `t` and a `_s` suffix seconds, `_bps` bit/s,
/// `bytes` bytes, `pkts` packets (alone or as a suffix), before a `_total` (the whole
/// run's count); anything else (counts, names, fractions) has none.
pub fn unit_of(name: &str) -> &'static str {
    let name = name.strip_suffix("_total").unwrap_or(name);
    if name == "t" {
        return "s";
    }
    [("bps", "bit/s"), ("bytes", "B"), ("pkts", "pkt"), ("s", "s")]
        .into_iter()
        .find(|(word, _)| name == *word || name.strip_suffix(word).is_some_and(|rest| rest.ends_with('_')))
        .map_or("", |(_, unit)| unit)
}

/// One field of every row, serialised as a sequence without collecting it: a column of
/// `serialize_by_column` ([`ByColumn::new`]).
pub struct ByColumn<'a, R, F> {
    rows: &'a [R],
    field: F,
}

impl<'a, R, F> ByColumn<'a, R, F> {
    /// The column of `rows` that `field` reads.
    pub fn new<T>(rows: &'a [R], field: F) -> Self
    where
        F: for<'r> Fn(&'r R) -> &'r T,
    {
        ByColumn { rows, field }
    }
}

impl<R, T: Serialize, F: for<'r> Fn(&'r R) -> &'r T> Serialize for ByColumn<'_, R, F> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.rows.iter().map(&self.field))
    }
}

/// Declares a result struct whose every field is a column (see the module documentation):
/// the struct as written, and `COLUMNS`, one [`Column`] per field in declaration order.
macro_rules! result_row {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident {
            $( $(#[doc = $doc:literal])+ $(#[serde $serde:tt])? pub $field:ident : $ty:ty, )+
        }
    ) => {
        $(#[$meta])*
        pub struct $Name {
            $( $(#[doc = $doc])+ $(#[serde $serde])? pub $field: $ty, )+
        }

        impl $Name {
            /// Every field as a column of the results tables, in declaration order.
            pub const COLUMNS: &'static [$crate::columns::Column] = &[$(
                $crate::columns::Column {
                    name: stringify!($field),
                    dtype: <$ty as $crate::columns::ColumnType>::DTYPE,
                    unit: "",
                    doc: concat!($($doc),+),
                }
            ),+];

            /// Serialises `rows` by column: a map of one sequence per field, in declaration
            /// order, each holding the rows' values (`{"name": [...], ...}`; a field's
            /// `serde` attributes do not apply), for `#[serde(serialize_with = ...)]` on a
            /// `Vec` of rows the Python side reads as columns ([`ByColumn`](crate::columns::ByColumn)).
            pub fn serialize_by_column<S: serde::Serializer>(rows: &[Self], serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(Some(Self::COLUMNS.len()))?;
                $( map.serialize_entry(stringify!($field), &$crate::columns::ByColumn::new(rows, |row: &Self| &row.$field))?; )+
                map.end()
            }

            /// [`Self::COLUMNS`] with each unit ([`unit_of`](crate::columns::unit_of)) and the
            /// doc's lines trimmed, as the catalog exports them.
            pub fn columns() -> Vec<$crate::columns::Column> {
                Self::COLUMNS
                    .iter()
                    .map(|c| $crate::columns::Column { unit: $crate::columns::unit_of(c.name), doc: c.doc.trim(), ..*c })
                    .collect()
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    result_row! {
        /// A test row.
        #[derive(Debug, serde::Serialize)]
        pub struct Row {
            /// Its name.
            pub name: String,
            /// Goodput, bit/s,
            /// over the window.
            pub goodput_bps: Option<f64>,
            /// Drops by reason.
            pub drops_by_reason: std::collections::BTreeMap<String, u64>,
        }
    }

    #[test]
    fn columns_follow_the_fields_with_their_types_units_and_docs() {
        let c = Row::columns();
        let got: Vec<_> = c.iter().map(|c| (c.name, c.dtype, c.unit)).collect();
        assert_eq!(
            got,
            vec![
                ("name", "string", ""),
                ("goodput_bps", "float64", "bit/s"),
                ("drops_by_reason", "int64_by_reason", "")
            ]
        );
        assert_eq!(c[1].doc, "Goodput, bit/s, over the window.");
        let row = Row { name: "a".into(), goodput_bps: None, drops_by_reason: Default::default() };
        let json = serde_json::to_value(&row).unwrap();
        assert_eq!(json.as_object().unwrap().keys().collect::<Vec<_>>().len(), c.len());
    }

    #[test]
    fn rows_serialise_by_column_in_declaration_order() {
        #[derive(serde::Serialize)]
        struct Rows(#[serde(serialize_with = "Row::serialize_by_column")] Vec<Row>);
        let drops = std::collections::BTreeMap::from([("overflow".to_string(), 3)]);
        let rows = vec![
            Row { name: "a".into(), goodput_bps: Some(1.5), drops_by_reason: drops },
            Row { name: "b".into(), goodput_bps: None, drops_by_reason: Default::default() },
        ];
        assert_eq!(
            serde_json::to_string(&Rows(rows)).unwrap(),
            r#"{"name":["a","b"],"goodput_bps":[1.5,null],"drops_by_reason":[{"overflow":3},{}]}"#
        );
        assert_eq!(
            serde_json::to_string(&Rows(vec![])).unwrap(),
            r#"{"name":[],"goodput_bps":[],"drops_by_reason":[]}"#
        );
    }

    #[test]
    fn units_come_from_the_suffix() {
        for (name, unit) in [
            ("fct_s", "s"),
            ("rate_bps", "bit/s"),
            ("tx_bytes", "B"),
            ("max_queue_pkts", "pkt"),
            ("delivered_bytes_total", "B"),
            ("drops", ""),
        ] {
            assert_eq!(unit_of(name), unit, "{name}");
        }
    }
}
