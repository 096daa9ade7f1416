//! A static file server for the built app, answering as a static host does:
//! `cargo xtask serve` serves `dist/` with it, and the browser tests run against it.
//!
//! * `GET` and `HEAD` only; the path is percent-decoded and may not climb out of
//!   the folder (`..`, a backslash or a NUL is refused with 400).
//! * `/` and a folder serve their `index.html`.
//! * A file with a `NAME.gz` copy beside it (the release build writes them,
//!   `precompress.rs`) is sent compressed, `Content-Encoding: gzip`, to a client
//!   whose `Accept-Encoding` allows gzip — nginx's `gzip_static on` — and as is to
//!   any other; `Vary: Accept-Encoding` either way.
//! * The wasm goes out as `application/wasm` (streaming compilation needs it), the
//!   service worker `sw.js` as JavaScript (browsers refuse a worker of any other
//!   type), the web app manifest as `application/manifest+json`.
//! * Every response is `Cache-Control: no-cache` (a rebuild shows on reload) and
//!   closes its connection.
//!
//! Bound to 127.0.0.1 only. One thread a connection; a request head over 16 KiB or
//! slower than 10 s is dropped.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Duration;

use anyhow::{bail, Context, Result};

const MAX_HEAD_BYTES: u64 = 16 * 1024;
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// A running server; it stops with the process.
pub struct Server {
    addr: SocketAddr,
    accept: thread::JoinHandle<()>,
}

impl Server {
    /// Binds 127.0.0.1:`port` (0: any free port) and serves `dir` from a thread.
    pub fn start(dir: &Path, port: u16) -> Result<Self> {
        let dir = dir
            .canonicalize()
            .with_context(|| format!("{} does not exist", dir.display()))?;
        if !dir.join("index.html").is_file() {
            bail!("{} has no index.html: the app is not built", dir.display());
        }
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).with_context(|| {
            format!("cannot listen on 127.0.0.1:{port} (is it in use? pick another with --port N)")
        })?;
        let addr = listener.local_addr()?;
        let accept = thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let dir = dir.clone();
                thread::spawn(move || {
                    let _ = handle(&dir, stream);
                });
            }
        });
        Ok(Self { addr, accept })
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Asks for `/` as a browser would and checks that the page comes back.
    pub fn check_answers(&self) -> Result<()> {
        let (status, headers, body) = get(self.addr, "/", "gzip")?;
        if status != 200 || !headers.contains("content-type: text/html") {
            bail!("the server at {} answered `/` with {status}", self.url());
        }
        if !String::from_utf8_lossy(&body).contains("<html") {
            bail!(
                "the server at {} sent a page that is not the app",
                self.url()
            );
        }
        Ok(())
    }

    /// Serves until the process ends.
    pub fn wait(self) {
        let _ = self.accept.join();
    }
}

/// The content type a static host gives a file, by its extension.
fn content_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        "yaml" | "yml" => "text/yaml; charset=utf-8",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

/// A request's method, path and whether the client takes gzip.
struct Request {
    method: String,
    path: String,
    gzip: bool,
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.take(MAX_HEAD_BYTES));
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    parts.next()?.strip_prefix("HTTP/")?;
    let mut gzip = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("accept-encoding") {
                gzip = accepts_gzip(value);
            }
        }
    }
    let path = target.split(['?', '#']).next().unwrap_or("/").to_string();
    Some(Request { method, path, gzip })
}

/// True if an `Accept-Encoding` value allows gzip (`gzip`, `*`, not `q=0`).
fn accepts_gzip(value: &str) -> bool {
    let mut star = None;
    let mut gzip = None;
    for item in value.split(',') {
        let mut fields = item.split(';');
        let coding = fields.next().unwrap_or("").trim().to_ascii_lowercase();
        let zero = fields.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                == Some(0.0)
        });
        match coding.as_str() {
            "gzip" | "x-gzip" => gzip = Some(!zero),
            "*" => star = Some(!zero),
            _ => {}
        }
    }
    gzip.or(star).unwrap_or(false)
}

/// The file under `root` that `path` names, or the status to answer instead.
fn resolve(root: &Path, path: &str) -> Result<PathBuf, u16> {
    let decoded = percent_decode(path).ok_or(400u16)?;
    let mut file = root.to_path_buf();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => return Err(400),
            s if s.contains(['\\', '\0']) => return Err(400),
            s => file.push(s),
        }
    }
    if file.is_dir() {
        file.push("index.html");
    }
    if file.is_file() {
        Ok(file)
    } else {
        Err(404)
    }
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn handle(root: &Path, mut stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let Some(request) = read_request(&stream) else {
        return respond(&mut stream, 400, &[], b"bad request\n", false);
    };
    let head_only = request.method == "HEAD";
    if request.method != "GET" && !head_only {
        return respond(
            &mut stream,
            405,
            &[("Allow", "GET, HEAD")],
            b"only GET and HEAD\n",
            false,
        );
    }
    let file = match resolve(root, &request.path) {
        Ok(file) => file,
        Err(status) => {
            let body = format!("{status}: {}\n", request.path);
            return respond(&mut stream, status, &[], body.as_bytes(), head_only);
        }
    };
    let kind = content_type(&file);
    let mut gz = file.clone().into_os_string();
    gz.push(".gz");
    let gz = PathBuf::from(gz);
    let (body, encoding) = if request.gzip && gz.is_file() {
        (fs::read(&gz)?, Some("gzip"))
    } else {
        (fs::read(&file)?, None)
    };
    let mut headers = vec![("Content-Type", kind), ("Vary", "Accept-Encoding")];
    if let Some(encoding) = encoding {
        headers.push(("Content-Encoding", encoding));
    }
    respond(&mut stream, 200, &headers, &body, head_only)
}

fn respond(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(&str, &str)],
    body: &[u8],
    head_only: bool,
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Error",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n",
        body.len()
    );
    if status != 200 {
        head.push_str("Content-Type: text/plain; charset=utf-8\r\n");
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(body)?;
    }
    stream.flush()
}

/// A `GET` to the server: status, the head's header lines (lower-cased), body.
pub fn get(addr: SocketAddr, path: &str, accept_encoding: &str) -> Result<(u16, String, Vec<u8>)> {
    request(addr, "GET", path, accept_encoding)
}

fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    accept_encoding: &str,
) -> Result<(u16, String, Vec<u8>)> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .with_context(|| format!("nothing answers on {addr}"))?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAccept-Encoding: {accept_encoding}\r\n\
         Connection: close\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .context("the answer has no end of head")?;
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .context("the answer has no status")?;
    Ok((status, head, raw[split + 4..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A built app in a scratch folder: a page, a wasm with its `.gz` copy, a
    /// lesson without one.
    fn site() -> (PathBuf, Server) {
        let dir = std::env::temp_dir().join(format!(
            "xtask-serve-test-{}-{:?}",
            std::process::id(),
            thread::current().id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("lessons/01")).unwrap();
        fs::write(dir.join("index.html"), "<!doctype html><html>app</html>").unwrap();
        fs::write(dir.join("app_bg.wasm"), b"\0asm plain").unwrap();
        fs::write(dir.join("app_bg.wasm.gz"), b"gzipped bytes").unwrap();
        fs::write(dir.join("lessons/01/en.md"), "# One").unwrap();
        fs::write(
            dir.join("sw.js"),
            "self.addEventListener('fetch', () => {});",
        )
        .unwrap();
        fs::write(dir.join("manifest.webmanifest"), "{}").unwrap();
        let server = Server::start(&dir, 0).unwrap();
        (dir, server)
    }

    #[test]
    fn the_compressed_copy_goes_to_a_client_that_takes_gzip() {
        let (_dir, server) = site();
        server.check_answers().unwrap();
        let (status, head, body) = get(server.addr, "/app_bg.wasm", "gzip, deflate, br").unwrap();
        assert_eq!(status, 200);
        assert!(head.contains("content-encoding: gzip"), "{head}");
        assert!(head.contains("content-type: application/wasm"), "{head}");
        assert!(head.contains("vary: accept-encoding"), "{head}");
        assert_eq!(body, b"gzipped bytes");
        // No gzip, or gzip refused: the file as it is.
        for refusing in ["identity", "gzip;q=0, br", ""] {
            let (_, head, body) = get(server.addr, "/app_bg.wasm", refusing).unwrap();
            assert!(!head.contains("content-encoding"), "{refusing}: {head}");
            assert_eq!(body, b"\0asm plain");
        }
        // A file without a copy is sent as it is even to a gzip client.
        let (status, head, body) = get(server.addr, "/lessons/01/en.md?x=1", "gzip").unwrap();
        assert_eq!((status, body.as_slice()), (200, b"# One".as_slice()));
        assert!(!head.contains("content-encoding"), "{head}");
    }

    #[test]
    fn the_page_its_folders_and_what_is_refused() {
        let (_dir, server) = site();
        let (status, head, body) = get(server.addr, "/", "gzip").unwrap();
        assert_eq!(status, 200);
        assert!(head.contains("content-type: text/html"));
        assert!(String::from_utf8_lossy(&body).contains("app"));
        for (path, want) in [
            ("/missing.js", 404),
            ("/lessons/02/en.md", 404),
            ("/../etc/passwd", 400),
            ("/%2e%2e/etc/passwd", 400),
            ("/lessons/..%2f..%2fx", 400),
            ("/a%5cb", 400),
            ("/%zz", 400),
        ] {
            assert_eq!(get(server.addr, path, "gzip").unwrap().0, want, "{path}");
        }
        let (status, head, body) = request(server.addr, "HEAD", "/app_bg.wasm", "gzip").unwrap();
        assert_eq!(status, 200);
        assert!(head.contains(&format!("content-length: {}", b"gzipped bytes".len())));
        assert!(body.is_empty());
        let (status, head, _) = request(server.addr, "POST", "/", "gzip").unwrap();
        assert_eq!(status, 405);
        assert!(head.contains("allow: get, head"));
    }

    #[test]
    fn the_service_worker_and_the_manifest_have_the_types_browsers_require() {
        let (_dir, server) = site();
        for (path, want) in [
            ("/sw.js", "content-type: text/javascript"),
            (
                "/manifest.webmanifest",
                "content-type: application/manifest+json",
            ),
        ] {
            let (status, head, _) = get(server.addr, path, "gzip").unwrap();
            assert_eq!(status, 200, "{path}");
            assert!(head.contains(want), "{path}: {head}");
        }
    }

    #[test]
    fn accept_encoding_is_read_as_a_list_with_weights() {
        assert!(accepts_gzip("gzip"));
        assert!(accepts_gzip("deflate, GZIP;q=0.5"));
        assert!(accepts_gzip("*"));
        assert!(!accepts_gzip("*;q=0"));
        assert!(!accepts_gzip("gzip;q=0, *"));
        assert!(!accepts_gzip("br, deflate"));
        assert!(!accepts_gzip(""));
    }

    #[test]
    fn a_folder_without_the_app_is_refused_at_start() {
        let dir = std::env::temp_dir().join(format!("xtask-serve-empty-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let err = Server::start(&dir, 0).err().expect("no index.html");
        assert!(err.to_string().contains("not built"), "{err}");
    }
}
