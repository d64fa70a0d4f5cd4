//! Results tables written as Parquet files, so that a single run needs neither pyarrow nor
//! NumPy in its process.
//!
//! `qdsim run` spent about as much CPU importing pyarrow and the NumPy it imports as its
//! whole summary took (docs/performance.md, "The Python around the core"). Its tables come
//! from two places: the core's flows and links, already in Arrow's layout
//! (`qdsim_core::arrow`, handed over by `run` as `(arrow_type, rows, nulls, validity,
//! buffers)`), and the columns Python derives, as lists of Python values. [`write_parquet`]
//! takes both, with the table's schema as type names (`qdsim.results.tables` declares it),
//! and writes one file. [`write_parquet_stream`] writes a table pyarrow made (a sweep's
//! tables, a run's sampled series), read through the Arrow C stream interface, so every
//! results file is written by the same writer with the same settings.
//!
//! The settings are pyarrow's defaults where they matter to a reader: Snappy compression,
//! lists stored as the Parquet format names their parts, and the Arrow schema embedded
//! (`ARROW:schema`), so a file reads back with exactly the types pyarrow's writer gave it
//! (a `uint64` seed stays `uint64`; a list's items are `element`).

use std::fs::File;
use std::sync::Arc;

use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::types::Float64Type;
use arrow_array::{
    make_array, ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, RecordBatch, RecordBatchOptions,
    RecordBatchReader, StringArray, UInt64Array,
};
use arrow_buffer::Buffer;
use arrow_data::ArrayData;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyCapsule, PyCapsuleMethods, PyFloat, PyInt, PyList, PyString, PyTuple};

/// The largest magnitude up to which a double holds every integer exactly: an integer in a
/// float64 column beyond it is refused, as `pyarrow.array` refuses it.
const DOUBLE_EXACT: i128 = 1 << 53;

/// Returns the Arrow type a type name of `qdsim.results.tables` stands for.
fn data_type(name: &str) -> PyResult<DataType> {
    Ok(match name {
        "int64" => DataType::Int64,
        "uint64" => DataType::UInt64,
        "float64" => DataType::Float64,
        "string" => DataType::Utf8,
        "bool" => DataType::Boolean,
        "list<float64>" => DataType::List(Arc::new(Field::new_list_field(DataType::Float64, true))),
        other => {
            return Err(PyValueError::new_err(format!(
                "column type {other:?} is not one of int64, uint64, float64, string, bool, list<float64>"
            )))
        }
    })
}

/// The error of a value a column cannot hold: its column, row, value and the column's type.
fn refused(column: &str, row: usize, value: &Bound<'_, PyAny>, kind: &str) -> PyErr {
    let shown = value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    PyTypeError::new_err(format!("column {column}, row {row}: {shown} cannot be stored as {kind}"))
}

/// Returns one value of a float64 column: a float, or an int a double holds exactly.
fn float_value(column: &str, row: usize, value: &Bound<'_, PyAny>) -> PyResult<f64> {
    if value.is_instance_of::<PyFloat>() {
        return value.extract::<f64>();
    }
    if value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>() {
        if let Ok(n) = value.extract::<i128>() {
            if (-DOUBLE_EXACT..=DOUBLE_EXACT).contains(&n) {
                return Ok(n as f64);
            }
        }
    }
    Err(refused(column, row, value, "float64"))
}

/// Returns one value of an integer column: an int (never a bool) in `T`'s range.
fn int_value<'py, T: FromPyObjectOwned<'py>>(
    column: &str,
    row: usize,
    value: &Bound<'py, PyAny>,
    kind: &str,
) -> PyResult<T> {
    if value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>() {
        if let Ok(n) = value.extract::<T>() {
            return Ok(n);
        }
    }
    Err(refused(column, row, value, kind))
}

/// Returns a list of Python values (None for null) as an array of `kind`.
fn from_values(column: &str, kind: &DataType, values: &Bound<'_, PyList>) -> PyResult<ArrayRef> {
    // Each value, None as null, through `one`, which refuses what the column cannot hold.
    fn each<'py, T>(
        values: &Bound<'py, PyList>,
        mut one: impl FnMut(usize, &Bound<'py, PyAny>) -> PyResult<T>,
    ) -> PyResult<Vec<Option<T>>> {
        let mut out = Vec::with_capacity(values.len());
        for (row, value) in values.iter().enumerate() {
            out.push(if value.is_none() { None } else { Some(one(row, &value)?) });
        }
        Ok(out)
    }
    Ok(match kind {
        DataType::Int64 => Arc::new(Int64Array::from(each(values, |r, v| int_value::<i64>(column, r, v, "int64"))?)),
        DataType::UInt64 => Arc::new(UInt64Array::from(each(values, |r, v| int_value::<u64>(column, r, v, "uint64"))?)),
        DataType::Float64 => Arc::new(Float64Array::from(each(values, |r, v| float_value(column, r, v))?)),
        DataType::Boolean => Arc::new(BooleanArray::from(each(values, |r, v| {
            if v.is_instance_of::<PyBool>() {
                v.extract::<bool>()
            } else {
                Err(refused(column, r, v, "bool"))
            }
        })?)),
        DataType::Utf8 => {
            let text = each(values, |r, v| match v.cast::<PyString>() {
                Ok(s) => s.to_str().map(str::to_owned).map_err(|_| refused(column, r, v, "string (valid Unicode)")),
                Err(_) => Err(refused(column, r, v, "string")),
            })?;
            Arc::new(StringArray::from(text))
        }
        DataType::List(_) => {
            let lists: Vec<Option<Vec<Option<f64>>>> = each(values, |r, v| {
                let items = v.cast::<PyList>().map_err(|_| refused(column, r, v, "list<float64>"))?;
                items
                    .iter()
                    .map(|x| if x.is_none() { Ok(None) } else { float_value(column, r, &x).map(Some) })
                    .collect()
            })?;
            Arc::new(ListArray::from_iter_primitive::<Float64Type, _, _>(lists))
        }
        _ => unreachable!("data_type makes no other type"),
    })
}

/// Returns a column of the core's, `(arrow_type, rows, nulls, validity, buffers)` in Arrow's
/// layout as `run` hands it over, as an array of `kind` (named `type_name`, which must be
/// its type).
fn from_core(column: &str, kind: &DataType, type_name: &str, given: &Bound<'_, PyTuple>) -> PyResult<ArrayRef> {
    let (arrow_type, rows, _nulls, validity, buffers): (String, usize, usize, Option<Vec<u8>>, Vec<Vec<u8>>) =
        given.extract()?;
    if arrow_type != type_name {
        return Err(PyTypeError::new_err(format!(
            "column {column}: the core's {arrow_type} column in a {type_name} column"
        )));
    }
    let buffers = buffers.into_iter().map(Buffer::from_vec).collect();
    let data = ArrayData::try_new(kind.clone(), rows, validity.map(Buffer::from_vec), 0, buffers, vec![])
        .map_err(|e| PyValueError::new_err(format!("column {column}: {e}")))?;
    Ok(make_array(data))
}

/// Writes `batches` of `schema` to the Parquet file `path`, without the GIL.
fn write_batches(
    py: Python<'_>,
    path: &str,
    schema: SchemaRef,
    batches: impl Iterator<Item = PyResult<RecordBatch>> + Send,
) -> PyResult<()> {
    let failed = |e: &dyn std::fmt::Display| PyOSError::new_err(format!("writing {path}: {e}"));
    let file = File::create(path).map_err(|e| failed(&e))?;
    // pyarrow's defaults: Snappy, and lists' items named `element` as the Parquet format
    // asks (pyarrow's `use_compliant_nested_type`), which is also how they read back.
    let properties = WriterProperties::builder().set_compression(Compression::SNAPPY).set_coerce_types(true).build();
    py.detach(|| {
        let mut writer = ArrowWriter::try_new(file, schema, Some(properties)).map_err(|e| failed(&e))?;
        for batch in batches {
            writer.write(&batch?).map_err(|e| failed(&e))?;
        }
        writer.close().map(drop).map_err(|e| failed(&e))
    })
}

/// Writes one table to the Parquet file `path`: `fields` its columns' names and type names
/// (int64, uint64, float64, string, bool, list<float64>), `columns` one per field, each a
/// list of Python values (None for null) or one of the core's Arrow columns as `run` hands
/// it over; `rows` its number of rows. A value a column cannot hold raises TypeError naming
/// the column and the row.
#[pyfunction]
pub fn write_parquet(
    py: Python<'_>,
    path: &str,
    fields: Vec<(String, String)>,
    columns: Vec<Bound<'_, PyAny>>,
    rows: usize,
) -> PyResult<()> {
    if fields.len() != columns.len() {
        return Err(PyValueError::new_err(format!("{} fields and {} columns", fields.len(), columns.len())));
    }
    let mut schema = Vec::with_capacity(fields.len());
    let mut arrays = Vec::with_capacity(fields.len());
    for ((name, type_name), given) in fields.iter().zip(&columns) {
        let kind = data_type(type_name)?;
        let array = if let Ok(values) = given.cast::<PyList>() {
            from_values(name, &kind, values)?
        } else if let Ok(core) = given.cast::<PyTuple>() {
            from_core(name, &kind, type_name, core)?
        } else {
            return Err(PyTypeError::new_err(format!(
                "column {name}: a list or one of the core's columns, not {}",
                given.get_type().name()?
            )));
        };
        if array.len() != rows {
            return Err(PyValueError::new_err(format!("column {name}: {} rows in a table of {rows}", array.len())));
        }
        schema.push(Field::new(name, kind, true));
        arrays.push(array);
    }
    let schema = Arc::new(Schema::new(schema));
    let batch = RecordBatch::try_new_with_options(
        schema.clone(),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    write_batches(py, path, schema, std::iter::once(Ok(batch)))
}

/// Writes a table that offers the Arrow C stream interface (`__arrow_c_stream__`: a
/// `pyarrow.Table`) to the Parquet file `path`, as it is: its schema and its record batches.
#[pyfunction]
pub fn write_parquet_stream(py: Python<'_>, path: &str, table: &Bound<'_, PyAny>) -> PyResult<()> {
    let capsule = table.call_method0("__arrow_c_stream__")?;
    let capsule =
        capsule.cast::<PyCapsule>().map_err(|_| PyTypeError::new_err("__arrow_c_stream__ gave no capsule"))?;
    let pointer = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // Safety: a capsule named `arrow_array_stream` holds an FFI_ArrowArrayStream (the C
    // stream interface); the reader moves it out, leaving the capsule a released stream.
    let reader = unsafe { RecordBatchStreamReader::from_raw(pointer.cast::<FFI_ArrowArrayStream>().as_ptr()) }
        .map_err(|e| PyValueError::new_err(format!("reading the table's stream: {e}")))?;
    let schema = reader.schema();
    write_batches(py, path, schema, reader.map(|batch| batch.map_err(|e| PyValueError::new_err(e.to_string()))))
}
