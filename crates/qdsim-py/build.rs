//! Embeds the digest of the sources that decide a run's results (`SOURCE_DIGEST`), and how
//! the extension was compiled (`BUILD`).
//!
//! A sweep keys every stored point by the code that computed it, so that a resumed sweep
//! never mixes two simulators' results. That key must come from the sources, not from the
//! compiled file: two builds of the same commit (in two checkouts, or a wheel and a
//! development build) compute the same results and must reuse each other's points. The
//! digest covers the core (`crates/qdsim-core`: its sources and manifest), this binding
//! (which converts the results) and `Cargo.lock` (the exact versions of every dependency,
//! `rand` included). Build scripts, benchmarks and tests do not change results and are left
//! out. The Python files that turn results into table rows are digested at run time by
//! `qdsim.run.code_version`, as they are always installed beside the package.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Adds every `.rs` file under `dir` to `out`, named `prefix/<path below dir>` (none if
/// `dir` does not exist).
fn rust_files(dir: &Path, prefix: &str, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = format!("{prefix}/{}", entry.file_name().to_string_lossy());
        if path.is_dir() {
            rust_files(&path, &name, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((name, path));
        }
    }
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = here.join("../..");
    let core = here.join("../qdsim-core");
    // Named relative to the workspace root and sorted: the digest does not depend on where
    // the checkout is or on the order the file system lists it.
    let mut files = vec![
        ("Cargo.lock".to_string(), root.join("Cargo.lock")),
        ("crates/qdsim-core/Cargo.toml".to_string(), core.join("Cargo.toml")),
        ("crates/qdsim-py/Cargo.toml".to_string(), here.join("Cargo.toml")),
    ];
    rust_files(&core.join("src"), "crates/qdsim-core/src", &mut files);
    rust_files(&here.join("src"), "crates/qdsim-py/src", &mut files);
    files.sort();
    let mut hash = Sha256::new();
    for (name, path) in &files {
        let content = fs::read(path).unwrap_or_else(|_| b"(absent)".to_vec());
        hash.update(name.as_bytes());
        hash.update([0]);
        hash.update((content.len() as u64).to_le_bytes());
        hash.update(&content);
    }
    let digest: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=QDSIM_SOURCE_DIGEST={digest}");
    println!("cargo:rustc-env=QDSIM_BUILD={}", build_kind());
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    for dir in [core.join("src"), here.join("src")] {
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    for file in [root.join("Cargo.lock"), core.join("Cargo.toml"), here.join("Cargo.toml")] {
        println!("cargo:rerun-if-changed={}", file.display());
    }
}

/// Returns how this build compiles the code, for `_core.BUILD` (`qdsim --version`, the speed
/// benchmarks): cargo's profile, and whether the compiler is instrumenting it for a profile or
/// optimising it from one (`scripts/pgo.py`'s `-Cprofile-generate` / `-Cprofile-use`). A build
/// script sees the flags the crates get in `CARGO_ENCODED_RUSTFLAGS`, separated by 0x1f.
fn build_kind() -> String {
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let flags: Vec<&str> = flags.split('\x1f').collect();
    // `-Cprofile-use=F` or `-C profile-use=F`, either as one argument or as two.
    let has = |option: &str| {
        flags.iter().enumerate().any(|(i, f)| {
            f.starts_with(&format!("-C{option}"))
                || (*f == "-C" && flags.get(i + 1).is_some_and(|g| g.starts_with(option)))
        })
    };
    if has("profile-use") {
        format!("{profile}, profile-guided")
    } else if has("profile-generate") {
        format!("{profile}, instrumented for a profile")
    } else {
        profile
    }
}
