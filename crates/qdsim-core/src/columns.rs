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

/// Declares a result struct whose every field is a column (see the module documentation):
/// the struct as written, and `COLUMNS`, one [`Column`] per field in declaration order.
macro_rules! result_row {
    (
        arrow:
        $(#[$meta:meta])*
        pub struct $Name:ident {
            $( $(#[doc = $doc:literal])+ $(#[serde $serde:tt])? pub $field:ident : $ty:ty, )+
        }
    ) => {
        result_row! {
            $(#[$meta])*
            pub struct $Name {
                $( $(#[doc = $doc])+ $(#[serde $serde])? pub $field: $ty, )+
            }
        }

        impl $Name {
            /// Returns `rows` as Arrow columns, one per field in declaration order
            /// ([`arrow`](crate::arrow)), for a binding to hand over without JSON.
            pub fn to_arrow(rows: &[Self]) -> Vec<(&'static str, $crate::arrow::ArrowColumn)> {
                vec![$( (stringify!($field), $crate::arrow::ArrowColumn::of(rows.iter().map(|row| &row.$field))), )+]
            }
        }
    };
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

    result_row! {
        arrow:
        /// A test row handed over as Arrow columns.
        #[derive(Debug)]
        pub struct ArrowRow {
            /// Its name.
            pub name: String,
            /// Its count.
            pub count: Option<u64>,
        }
    }

    #[test]
    fn rows_become_arrow_columns_in_declaration_order() {
        let rows = [ArrowRow { name: "a".into(), count: Some(2) }, ArrowRow { name: "bc".into(), count: None }];
        let columns = ArrowRow::to_arrow(&rows);
        let names: Vec<_> = columns.iter().map(|(name, c)| (*name, c.arrow_type, c.len, c.null_count)).collect();
        assert_eq!(names, vec![("name", "string", 2, 0), ("count", "int64", 2, 1)]);
        // The same fields as the table's columns, in the same order.
        let declared: Vec<_> = ArrowRow::columns().iter().map(|c| c.name).collect();
        assert_eq!(declared, columns.iter().map(|(name, _)| *name).collect::<Vec<_>>());
        assert_eq!(columns[0].1.buffers[1], b"abc");
        assert_eq!(ArrowRow::to_arrow(&[])[1].1.len, 0);
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
