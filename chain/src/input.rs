//! Input files, plain or compressed: gzip and zstd streams are told apart from plain text by
//! their first bytes (not by their names) and decompressed as they are read, so a compressed
//! file is never held whole.
//!
//! A read that fails inside a compressed stream (a truncated or corrupt file) comes back as
//! [`InputError::Corrupt`] naming the file; [`take_input_error`] recovers it from the
//! [`std::io::Error`] a reader returns.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Buffer size of the readers returned here.
const BUFFER: usize = 1 << 20;

/// How a file is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (RFC 1952), one or more members: first bytes `1f 8b`.
    Gzip,
    /// Zstandard (RFC 8878) frames: first bytes `28 b5 2f fd`.
    Zstd,
}

impl Compression {
    /// The compression a file starting with `head` uses.
    pub fn of(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }

    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "plain",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }
}

/// Why an input cannot be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum InputError {
    /// The file cannot be opened or read.
    Read {
        /// The file.
        file: String,
        /// The I/O error.
        source: io::Error,
    },
    /// The compressed stream is truncated or corrupt.
    Corrupt {
        /// The file.
        file: String,
        /// Its compression.
        compression: Compression,
        /// The decoder's error.
        source: io::Error,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Read { file, source } => write!(f, "{file}: cannot read: {source}"),
            InputError::Corrupt {
                file,
                compression,
                source,
            } => write!(
                f,
                "{file}: truncated or corrupt {} stream: {source}",
                compression.name()
            ),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InputError::Read { source, .. } | InputError::Corrupt { source, .. } => Some(source),
        }
    }
}

/// The [`InputError`] an I/O error from a reader of this module carries, or the I/O error
/// itself when it carries none.
pub fn take_input_error(e: io::Error) -> Result<InputError, io::Error> {
    if !e.get_ref().is_some_and(|inner| inner.is::<InputError>()) {
        return Err(e);
    }
    let kind = e.kind();
    match e.into_inner().map(|inner| inner.downcast::<InputError>()) {
        Some(Ok(input)) => Ok(*input),
        Some(Err(other)) => Err(io::Error::new(kind, other)),
        None => Err(io::Error::from(kind)),
    }
}

/// An [`InputError`] for an I/O error met while reading `file` (plain).
pub fn read_error(file: &str, e: io::Error) -> InputError {
    take_input_error(e).unwrap_or_else(|source| InputError::Read {
        file: file.to_owned(),
        source,
    })
}

/// A decoder whose errors become [`InputError::Corrupt`].
struct Decoded<R> {
    inner: R,
    file: String,
    compression: Compression,
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Err(e) if e.kind() != io::ErrorKind::Interrupted => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                InputError::Corrupt {
                    file: self.file.clone(),
                    compression: self.compression,
                    source: e,
                },
            )),
            other => other,
        }
    }
}

/// Opens `path` (`-` is stdin), decompressing it if its first bytes say so.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, InputError> {
    let name = path.display().to_string();
    if path.as_os_str() == "-" {
        return decompressing(&name, Box::new(io::stdin()));
    }
    let f = File::open(path).map_err(|source| InputError::Read {
        file: name.clone(),
        source,
    })?;
    decompressing(&name, Box::new(f))
}

/// Reads all of `path` (decompressed) as UTF-8 text.
pub fn read_to_string(path: &Path) -> Result<String, InputError> {
    let name = path.display().to_string();
    let mut text = String::new();
    open(path)?
        .read_to_string(&mut text)
        .map_err(|e| read_error(&name, e))?;
    Ok(text)
}

/// `reader`, read through a decompressor when its first bytes are a gzip or zstd magic
/// number; `name` names it in errors.
pub fn decompressing(
    name: &str,
    reader: Box<dyn Read + Send>,
) -> Result<Box<dyn BufRead + Send>, InputError> {
    let mut raw = BufReader::with_capacity(BUFFER, reader);
    // The magic numbers are at most 4 bytes; a short first read (a pipe) is topped up.
    let mut head = Vec::with_capacity(4);
    while head.len() < 4 {
        let buf = raw.fill_buf().map_err(|source| InputError::Read {
            file: name.to_owned(),
            source,
        })?;
        if buf.is_empty() {
            break;
        }
        let n = buf.len().min(4 - head.len());
        head.extend_from_slice(&buf[..n]);
        raw.consume(n);
    }
    let compression = Compression::of(&head);
    let stream = io::Cursor::new(head).chain(raw);
    let decoded: Box<dyn Read + Send> = match compression {
        Compression::None => return Ok(Box::new(BufReader::with_capacity(BUFFER, stream))),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(BufReader::new(stream))),
        Compression::Zstd => Box::new(
            zstd::stream::read::Decoder::with_buffer(BufReader::new(stream)).map_err(|source| {
                InputError::Corrupt {
                    file: name.to_owned(),
                    compression,
                    source,
                }
            })?,
        ),
    };
    Ok(Box::new(BufReader::with_capacity(
        BUFFER,
        Decoded {
            inner: decoded,
            file: name.to_owned(),
            compression,
        },
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &str = "{\"a\": 1}\n{\"b\": 2}\n";

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).expect("gzip in memory");
        e.finish().expect("gzip in memory")
    }

    /// As the `zstd` command line writes it: with a content checksum.
    fn zstd(bytes: &[u8]) -> Vec<u8> {
        let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).expect("zstd in memory");
        e.include_checksum(true).expect("zstd checksum flag");
        e.write_all(bytes).expect("zstd in memory");
        e.finish().expect("zstd in memory")
    }

    fn read_all(name: &str, bytes: Vec<u8>) -> Result<String, InputError> {
        let mut r = decompressing(name, Box::new(io::Cursor::new(bytes)))?;
        let mut s = String::new();
        r.read_to_string(&mut s).map_err(|e| read_error(name, e))?;
        Ok(s)
    }

    #[test]
    fn magic_bytes_decide_not_names() {
        assert_eq!(
            read_all("x.gz", TEXT.as_bytes().to_vec()).expect("plain"),
            TEXT
        );
        assert_eq!(
            read_all("x.json", gzip(TEXT.as_bytes())).expect("gzip"),
            TEXT
        );
        assert_eq!(
            read_all("x.json", zstd(TEXT.as_bytes())).expect("zstd"),
            TEXT
        );
        assert_eq!(read_all("empty", Vec::new()).expect("empty"), "");
        assert_eq!(read_all("short", b"{}".to_vec()).expect("short"), "{}");
    }

    #[test]
    fn concatenated_gzip_members_are_one_stream() {
        let mut two = gzip(b"{\"a\": 1}\n");
        two.extend(gzip(b"{\"b\": 2}\n"));
        assert_eq!(read_all("two.gz", two).expect("two members"), TEXT);
    }

    #[test]
    fn truncated_and_corrupt_streams_are_typed_errors_naming_the_file() {
        let big: String = (0..5000).map(|i| format!("{{\"n\": {i}}}\n")).collect();
        for (name, packed, compression) in [
            ("t.gz", gzip(big.as_bytes()), Compression::Gzip),
            ("t.zst", zstd(big.as_bytes()), Compression::Zstd),
        ] {
            let truncated = packed[..packed.len() / 2].to_vec();
            match read_all(name, truncated) {
                Err(InputError::Corrupt {
                    file,
                    compression: c,
                    ..
                }) => {
                    assert_eq!(file, name);
                    assert_eq!(c, compression);
                }
                Ok(text) => panic!("{name}: truncated stream read as {} bytes", text.len()),
                Err(e) => panic!("{name}: truncated: {e:?}"),
            }
            let mut corrupt = packed.clone();
            let mid = corrupt.len() / 2;
            for b in &mut corrupt[mid..mid + 16] {
                *b ^= 0xa5;
            }
            let e = match read_all(name, corrupt) {
                Ok(text) => panic!("{name}: corrupt stream read as {} bytes", text.len()),
                Err(e) => e,
            };
            assert!(matches!(e, InputError::Corrupt { .. }), "{name}: {e:?}");
            assert!(
                e.to_string()
                    .starts_with(&format!("{name}: truncated or corrupt")),
                "{e}"
            );
        }
    }
}
