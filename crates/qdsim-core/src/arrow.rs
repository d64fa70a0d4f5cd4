//! Result rows as Arrow columns: the layout a binding hands over without JSON.
//!
//! A run of 10⁵ flows has 4·10⁵ links and 10⁵ flows; as JSON their rows were 100 MB that
//! Python parsed into dicts and took apart again into the tables' columns, seconds of a
//! run. [`ArrowColumn`] holds one field of every row in the Arrow columnar format's memory
//! layout (<https://arrow.apache.org/docs/format/Columnar.html>), so that a reader makes
//! each column from its buffers without touching a value: a validity bitmap (bit *i* set
//! when row *i* holds a value; absent when every row does) and the type's buffers —
//!
//! | Rust type | Arrow type | buffers |
//! | --- | --- | --- |
//! | `u32`, `u64`, `i64` | `int64` | values (the tables store every count as `int64`) |
//! | `f64` | `float64` | values |
//! | `bool` | `bool` | values, one bit each |
//! | `String` | `string` | offsets (`int32`, one more than rows), UTF-8 data |
//! | `BTreeMap<String, u64>` | `map<string, int64>` | entry offsets (`int32`), key offsets, key data, values |
//!
//! `Option<T>` is `T`'s column with nulls. Every number is little-endian; a bitmap's bit *i*
//! is bit `i % 8` of byte `i / 8`, as Arrow's. Rows declared with `result_row!` get
//! `to_arrow`, one column per field in declaration order.

use std::collections::BTreeMap;

/// One column of result rows in Arrow's layout (module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct ArrowColumn {
    /// The Arrow type's name: `int64`, `float64`, `bool`, `string` or `map<string, int64>`.
    pub arrow_type: &'static str,
    /// Rows.
    pub len: usize,
    /// Rows without a value.
    pub null_count: usize,
    /// One bit per row, set where it holds a value; empty when `null_count` is 0.
    pub validity: Vec<u8>,
    /// The type's buffers, in Arrow's order (module documentation).
    pub buffers: Vec<Vec<u8>>,
}

impl ArrowColumn {
    /// Returns an empty column of `T`.
    pub fn new<T: ArrowValue + ?Sized>() -> Self {
        let mut column =
            ArrowColumn { arrow_type: T::ARROW_TYPE, len: 0, null_count: 0, validity: Vec::new(), buffers: Vec::new() };
        T::start(&mut column);
        column
    }

    /// Returns the column of `values`.
    pub fn of<'a, T: ArrowValue + 'a>(values: impl Iterator<Item = &'a T>) -> Self {
        let mut column = Self::new::<T>();
        for value in values {
            value.push(&mut column);
        }
        column.finish();
        column
    }

    /// Books the next row as valid or null (the bitmap is written from the first null on).
    fn mark(&mut self, valid: bool) {
        if !valid && self.null_count == 0 {
            self.validity = vec![0xff; self.len.div_ceil(8)];
            if let Some(last) = self.validity.last_mut() {
                *last = low_bits(self.len % 8);
            }
        }
        if self.null_count > 0 || !valid {
            set_bit(&mut self.validity, self.len, valid);
        }
        self.null_count += usize::from(!valid);
        self.len += 1;
    }

    /// Drops the bitmap of a column without nulls (Arrow's "all valid").
    fn finish(&mut self) {
        if self.null_count == 0 {
            self.validity.clear();
        }
    }
}

/// Returns a byte whose lowest `n` bits (0..8) are set, 0xff for 0 (a full byte).
fn low_bits(n: usize) -> u8 {
    if n == 0 {
        0xff
    } else {
        (1u8 << n) - 1
    }
}

/// Sets bit `i` of `bits` (growing it by a byte when `i` starts one) to `value`.
fn set_bit(bits: &mut Vec<u8>, i: usize, value: bool) {
    if i % 8 == 0 && bits.len() == i / 8 {
        bits.push(0);
    }
    let mask = 1u8 << (i % 8);
    if value {
        bits[i / 8] |= mask;
    } else {
        bits[i / 8] &= !mask;
    }
}

/// Appends an `int32` offset: where the next value of a variable-length column starts.
fn push_offset(offsets: &mut Vec<u8>, at: usize) {
    let at = i32::try_from(at).expect("an Arrow column's data under 2 GiB (int32 offsets)");
    offsets.extend_from_slice(&at.to_le_bytes());
}

/// A result field's type as an Arrow column (module documentation).
pub trait ArrowValue {
    /// The Arrow type's name.
    const ARROW_TYPE: &'static str;
    /// Makes the type's (empty) buffers.
    fn start(column: &mut ArrowColumn);
    /// Appends the value as row `column.len`.
    fn push(&self, column: &mut ArrowColumn);
    /// Appends a null as row `column.len`: zeros in fixed-width buffers, an empty value in
    /// variable-length ones.
    fn push_null(column: &mut ArrowColumn);
}

macro_rules! arrow_fixed {
    ($($ty:ty => $arrow:literal as $le:ty),+ $(,)?) => {
        $(impl ArrowValue for $ty {
            const ARROW_TYPE: &'static str = $arrow;
            fn start(column: &mut ArrowColumn) {
                column.buffers = vec![Vec::new()];
            }
            fn push(&self, column: &mut ArrowColumn) {
                column.buffers[0].extend_from_slice(&(*self as $le).to_le_bytes());
                column.mark(true);
            }
            fn push_null(column: &mut ArrowColumn) {
                column.buffers[0].extend_from_slice(&<$le>::default().to_le_bytes());
                column.mark(false);
            }
        })+
    };
}

// Counts never reach 2^63: the tables store them as `int64`, as the JSON's readers did.
arrow_fixed!(u32 => "int64" as i64, u64 => "int64" as i64, i64 => "int64" as i64, f64 => "float64" as f64);

impl ArrowValue for bool {
    const ARROW_TYPE: &'static str = "bool";
    fn start(column: &mut ArrowColumn) {
        column.buffers = vec![Vec::new()];
    }
    fn push(&self, column: &mut ArrowColumn) {
        set_bit(&mut column.buffers[0], column.len, *self);
        column.mark(true);
    }
    fn push_null(column: &mut ArrowColumn) {
        set_bit(&mut column.buffers[0], column.len, false);
        column.mark(false);
    }
}

impl ArrowValue for String {
    const ARROW_TYPE: &'static str = "string";
    fn start(column: &mut ArrowColumn) {
        column.buffers = vec![Vec::new(), Vec::new()];
        push_offset(&mut column.buffers[0], 0);
    }
    fn push(&self, column: &mut ArrowColumn) {
        column.buffers[1].extend_from_slice(self.as_bytes());
        let end = column.buffers[1].len();
        push_offset(&mut column.buffers[0], end);
        column.mark(true);
    }
    fn push_null(column: &mut ArrowColumn) {
        let end = column.buffers[1].len();
        push_offset(&mut column.buffers[0], end);
        column.mark(false);
    }
}

impl ArrowValue for BTreeMap<String, u64> {
    const ARROW_TYPE: &'static str = "map<string, int64>";
    fn start(column: &mut ArrowColumn) {
        column.buffers = vec![Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        push_offset(&mut column.buffers[0], 0);
        push_offset(&mut column.buffers[1], 0);
    }
    fn push(&self, column: &mut ArrowColumn) {
        let [entries, key_offsets, keys, values] = &mut column.buffers[..] else {
            unreachable!("a map column has four buffers")
        };
        for (key, value) in self {
            keys.extend_from_slice(key.as_bytes());
            push_offset(key_offsets, keys.len());
            values.extend_from_slice(&(*value as i64).to_le_bytes());
        }
        push_offset(entries, values.len() / 8);
        column.mark(true);
    }
    fn push_null(column: &mut ArrowColumn) {
        let entries = column.buffers[3].len() / 8;
        push_offset(&mut column.buffers[0], entries);
        column.mark(false);
    }
}

impl<T: ArrowValue> ArrowValue for Option<T> {
    const ARROW_TYPE: &'static str = T::ARROW_TYPE;
    fn start(column: &mut ArrowColumn) {
        T::start(column);
    }
    fn push(&self, column: &mut ArrowColumn) {
        match self {
            Some(value) => value.push(column),
            None => T::push_null(column),
        }
    }
    fn push_null(column: &mut ArrowColumn) {
        T::push_null(column);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i64s(bytes: &[u8]) -> Vec<i64> {
        bytes.chunks(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect()
    }

    fn i32s(bytes: &[u8]) -> Vec<i32> {
        bytes.chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
    }

    #[test]
    fn numbers_are_little_endian_values_without_a_bitmap_when_none_is_null() {
        let c = ArrowColumn::of([3u32, 0, 7].iter());
        assert_eq!((c.arrow_type, c.len, c.null_count), ("int64", 3, 0));
        assert!(c.validity.is_empty());
        assert_eq!(i64s(&c.buffers[0]), vec![3, 0, 7]);
        let f = ArrowColumn::of([1.5f64, -2.0].iter());
        assert_eq!(f.buffers[0], [1.5f64.to_le_bytes(), (-2.0f64).to_le_bytes()].concat());
    }

    #[test]
    fn nulls_clear_their_bits_and_leave_zeros_in_fixed_width_values() {
        // Ten rows, nulls at 1 and 9: the bitmap spans two bytes, and rows before the first
        // null are valid although the bitmap did not exist yet.
        let values: Vec<Option<u64>> = (0..10).map(|i| (i != 1 && i != 9).then_some(i)).collect();
        let c = ArrowColumn::of(values.iter());
        assert_eq!((c.len, c.null_count), (10, 2));
        assert_eq!(c.validity, vec![0b1111_1101, 0b0000_0001]);
        assert_eq!(i64s(&c.buffers[0]), vec![0, 0, 2, 3, 4, 5, 6, 7, 8, 0]);
        // A null as the ninth row: the bitmap made then covers the eight before it.
        let late: Vec<Option<f64>> = (0..9).map(|i| (i != 8).then_some(1.0)).collect();
        assert_eq!(ArrowColumn::of(late.iter()).validity, vec![0xff, 0]);
    }

    #[test]
    fn booleans_are_bits() {
        let values = [Some(true), None, Some(false), Some(true)];
        let c = ArrowColumn::of(values.iter());
        assert_eq!((c.arrow_type, c.null_count), ("bool", 1));
        assert_eq!(c.buffers[0], vec![0b1001]);
        assert_eq!(c.validity, vec![0b1101]);
    }

    #[test]
    fn strings_are_offsets_into_their_utf8_data() {
        let values = [Some("ab".to_string()), None, Some("ç".to_string())];
        let c = ArrowColumn::of(values.iter());
        assert_eq!(c.arrow_type, "string");
        assert_eq!(i32s(&c.buffers[0]), vec![0, 2, 2, 4]);
        assert_eq!(c.buffers[1], "abç".as_bytes());
        assert_eq!(c.validity, vec![0b101]);
    }

    #[test]
    fn maps_are_entry_offsets_into_keys_and_values() {
        let rows = [
            BTreeMap::from([("overflow".to_string(), 3), ("aqm".to_string(), 1)]),
            BTreeMap::new(),
            BTreeMap::from([("wire".to_string(), 9)]),
        ];
        let c = ArrowColumn::of(rows.iter());
        assert_eq!((c.arrow_type, c.len, c.null_count), ("map<string, int64>", 3, 0));
        assert_eq!(i32s(&c.buffers[0]), vec![0, 2, 2, 3]);
        assert_eq!(i32s(&c.buffers[1]), vec![0, 3, 11, 15]);
        assert_eq!(c.buffers[2], b"aqmoverflowwire");
        assert_eq!(i64s(&c.buffers[3]), vec![1, 3, 9]);
    }

    #[test]
    fn an_empty_column_has_its_first_offset() {
        let c = ArrowColumn::of(std::iter::empty::<&String>());
        assert_eq!((c.len, i32s(&c.buffers[0])), (0, vec![0]));
    }
}
