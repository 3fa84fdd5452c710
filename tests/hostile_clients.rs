//! Hostile clients of `tg serve` (the other-user, token and
//! garbage cases are in `serve.rs`): clients that connect and never read
//! their replies (the server keeps answering others within a bound, its
//! private memory stays under `--max-memory`, and it drops them after its
//! 30 s idle timeout); clients that announce huge frames or send endless
//! lines (bounded memory); 50 concurrent query clients for 20 s
//! (`TG_CLIENTS_SECS` to change), every answer rg's; and neither the
//! server's log nor `tg status` nor any reply ever shows the TCP token or
//! what a refused client sent.

mod util;

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use util::serve::{Served, json_exchange, socket_path, status, tcp_address};
use util::{Case, Tree};

/// The budget the servers here run with.
const BUDGET: u64 = 64 << 20;

/// A git tree of a few hundred files, indexed.
fn tree(name: &str) -> Tree {
    let t = Tree::new(name);
    t.git_init("repo");
    t.write("repo/.gitignore", "*.log\n");
    for i in 0..300 {
        let text = if i % 7 == 0 { format!("needle {i}\nplain\n") } else { format!("line {i}\n") };
        t.write(format!("repo/d{}/f{i:03}.txt", i % 10), text);
    }
    t.write("repo/app.log", "needle ignored\n");
    util::tg_index(&t, "repo");
    t
}

/// A frame of the binary protocol: length, kind, body.
fn frame(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut f = ((body.len() + 1) as u32).to_le_bytes().to_vec();
    f.push(kind);
    f.extend_from_slice(body);
    f
}

/// Writes `chunk` over and over until a write would wait 1 s or fails
/// (the server stopped reading, or closed); returns the bytes written.
fn write_until_stuck(w: &mut impl Write, chunk: &[u8], limit: usize) -> usize {
    let mut sent = 0;
    while sent < limit {
        match w.write(chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => sent += n,
        }
    }
    sent
}

/// The server's private memory now.
fn private(s: &Served) -> u64 {
    util::private_bytes(s.pid() as u32).expect("the server runs")
}

/// The queries the tests ask, with rg's answers.
fn expected(t: &Tree) -> Vec<(Case, util::Outcome)> {
    let list: &[(&str, &[&str])] = &[
        ("c", &["-c", "needle"]),
        ("n", &["-n", "needle"]),
        ("l", &["-l", "needle"]),
        ("json", &["--json", "needle 14"]),
        ("word", &["-w", "line 2[0-9]"]),
        ("absent", &["zz_absent_zz"]),
        ("subdir", &["-n", "needle", "d3"]),
    ];
    list.iter()
        .map(|(name, args)| {
            let c = Case::new(*name, args.iter()).cwd("repo");
            let rg = util::run(&util::rg_bin(), t.root(), &c);
            assert!(rg.stderr.is_empty() && !rg.timed_out, "rg {name}");
            (c, rg)
        })
        .collect()
}

/// Runs `case` with tg: `Err` says how it differs from rg's `want`.
fn ask(t: &Tree, case: &Case, want: &util::Outcome) -> Result<Duration, String> {
    let start = Instant::now();
    let got = util::run(&util::tg_bin(), t.root(), case);
    let took = start.elapsed();
    // `--json`'s summary counts only the files tg read (the index's work).
    let norm = |out: &[u8]| util::normalize_searched_counts(&util::normalize_stdout(out));
    let same_out = norm(&got.stdout) == norm(&want.stdout);
    if same_out && got.code == want.code && got.stderr.is_empty() {
        return Ok(took);
    }
    Err(format!(
        "{}: exit {:?} (rg {:?}), stdout {}, stderr {}",
        case.name,
        got.code,
        want.code,
        if same_out { "same" } else { "differs" },
        util::preview(&got.stderr, 300)
    ))
}

/// Whether a `--stats` query says the server answered it.
fn served(t: &Tree) -> bool {
    let out = util::tg_command(t, t.path("repo")).args(["--stats", "-l", "needle"]).output();
    String::from_utf8_lossy(&out.unwrap().stderr).contains("told by the server")
}

/// [`tree`], served within [`BUDGET`] on its socket and a loopback port:
/// the tree, the server, its TCP address and token, its socket.
fn served_on_tcp(name: &str) -> (Tree, Served, String, String, PathBuf) {
    let t = tree(name);
    let s = Served::start(&t, &["--max-memory", "64M", "--listen", "127.0.0.1:0"]);
    let (addr, token) = tcp_address(&t);
    let sock = socket_path(&t);
    (t, s, addr, token, sock)
}

#[test]
fn clients_that_never_read_hold_up_no_one() {
    if !util::in_whole_suite("half a minute: the server's 30 s wait for a stuck reader") {
        return;
    }
    let (t, s, addr, token, sock) = served_on_tcp("never_read");
    // Clients that ask and ask and never read the answers, until the
    // server, blocked on its writes, stops reading them.
    let mut stuck = Vec::new();
    for _ in 0..4 {
        let mut u = UnixStream::connect(&sock).unwrap();
        u.set_write_timeout(Some(Duration::from_secs(1))).unwrap();
        let mut asks = frame(1, br#"{"protocol":4}"#);
        asks.extend(frame(2, br#"{"op":"status"}"#).repeat(200));
        assert!(write_until_stuck(&mut u, &asks, 64 << 20) > 0);
        stuck.push(u);
    }
    let mut tcp = std::net::TcpStream::connect(&addr).unwrap();
    tcp.set_write_timeout(Some(Duration::from_secs(1))).unwrap();
    tcp.write_all(format!("{{\"protocol\":4,\"token\":\"{token}\"}}\n").as_bytes()).unwrap();
    write_until_stuck(&mut tcp, &b"{\"op\":\"status\"}\n".repeat(200), 64 << 20);
    // Meanwhile every other client is answered, quickly and right.
    for (case, want) in expected(&t) {
        let took = ask(&t, &case, &want).unwrap_or_else(|e| panic!("{e}"));
        assert!(took < Duration::from_secs(5), "{}: {took:?} while others are stuck", case.name);
    }
    assert!(served(&t), "the server answered while clients were stuck");
    let mem = private(&s);
    assert!(mem < BUDGET, "server private memory {mem} over its budget {BUDGET}");
    assert!(status(&t).contains("5 clients now"), "{}", status(&t));
    // The stuck ones are dropped once a reply waited 30 s to be taken.
    let deadline = Instant::now() + Duration::from_secs(50);
    while !status(&t).contains(" 0 clients now") {
        assert!(Instant::now() < deadline, "stuck clients kept:\n{}", status(&t));
        std::thread::sleep(Duration::from_millis(200));
    }
    for mut u in stuck {
        u.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut rest = Vec::new();
        // Whatever the kernel had buffered, then the end (or a reset).
        let r = u.read_to_end(&mut rest);
        assert!(r.is_ok() || r.is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset));
    }
}

#[test]
fn huge_frames_and_endless_lines_stay_bounded() {
    let (t, s, addr, _, sock) = served_on_tcp("huge_frames");
    let before = private(&s);
    let mut held = Vec::new();
    // 60 clients announce a frame just under 4 MiB and send nearly all of
    // it; 60 TCP clients (no token yet) send a line that never ends.
    for _ in 0..60 {
        let mut u = UnixStream::connect(&sock).unwrap();
        u.set_write_timeout(Some(Duration::from_secs(1))).unwrap();
        let mut head = ((4u32 << 20) - 1).to_le_bytes().to_vec();
        head.push(2);
        let _ = u.write_all(&head);
        write_until_stuck(&mut u, &[b'x'; 1 << 16], (4 << 20) - 64);
        held.push(u);
    }
    let mut lines = Vec::new();
    for _ in 0..60 {
        let mut c = std::net::TcpStream::connect(&addr).unwrap();
        c.set_write_timeout(Some(Duration::from_secs(1))).unwrap();
        let _ = c.write_all(b"{\"op\":\"");
        write_until_stuck(&mut c, &[b'y'; 1 << 16], 2 << 20);
        lines.push(c);
    }
    let mem = private(&s);
    eprintln!(
        "server private memory: {} KiB before, {} KiB with 120 hostile clients",
        before >> 10,
        mem >> 10
    );
    assert!(mem < BUDGET, "server private memory {mem} over its budget {BUDGET}");
    assert!(mem < before + (16 << 20), "hostile clients cost {} bytes", mem - before);
    for (case, want) in expected(&t) {
        ask(&t, &case, &want).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(served(&t), "the server still answers");
}

/// `TG_CLIENTS_SECS` (default 20): how long the load test runs.
fn load_seconds() -> u64 {
    std::env::var("TG_CLIENTS_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(20)
}

/// The `p`th percentile of sorted `v`.
fn percentile(v: &[Duration], p: usize) -> Duration {
    v[(v.len() * p / 100).min(v.len() - 1)]
}

#[test]
fn fifty_clients_at_once() {
    const CLIENTS: usize = 50;
    let t = Arc::new(tree("fifty"));
    let s = Served::start(&t, &["--max-memory", "64M"]);
    let cases = Arc::new(expected(&t));
    let queries_before = server_queries(&t);
    let stop = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(private(&s)));
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sampler = {
        let (stop, peak, pid) = (Arc::clone(&stop), Arc::clone(&peak), s.pid() as u32);
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                peak.fetch_max(util::private_bytes(pid).unwrap_or(0), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    let deadline = Instant::now() + Duration::from_secs(load_seconds());
    let clients: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let (t, cases) = (Arc::clone(&t), Arc::clone(&cases));
            let (latencies, errors) = (Arc::clone(&latencies), Arc::clone(&errors));
            std::thread::spawn(move || {
                let mut k = i;
                while Instant::now() < deadline {
                    let (case, want) = &cases[k % cases.len()];
                    match ask(&t, case, want) {
                        Ok(took) => latencies.lock().unwrap().push(took),
                        Err(e) => errors.lock().unwrap().push(e),
                    }
                    k += 1;
                }
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let mut lat = latencies.lock().unwrap().clone();
    lat.sort();
    let errors = errors.lock().unwrap();
    let peak = peak.load(Ordering::Relaxed);
    let served = server_queries(&t) - queries_before;
    eprintln!(
        "{CLIENTS} clients for {} s: {} queries ({served} served by the server), {} errors, \
         p50 {:.1?}, p99 {:.1?}, max {:.1?}; server peak private {:.1} MiB (budget {} MiB)",
        load_seconds(),
        lat.len(),
        errors.len(),
        percentile(&lat, 50),
        percentile(&lat, 99),
        lat.last().unwrap(),
        peak as f64 / f64::from(1 << 20),
        BUDGET >> 20
    );
    assert!(errors.is_empty(), "{} errors, first: {}", errors.len(), errors[0]);
    assert!(lat.len() >= CLIENTS, "only {} queries ran", lat.len());
    assert!(served as usize >= lat.len(), "{served} of {} queries went to the server", lat.len());
    assert!(peak < BUDGET, "server private memory peaked at {peak}, budget {BUDGET}");
}

/// The server's `queries` counter.
fn server_queries(t: &Tree) -> u64 {
    let st = status(t);
    let line = st.lines().find_map(|l| l.strip_prefix("queries:")).expect("a queries line");
    line.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn refused_clients_leave_no_secret_behind() {
    let t = tree("secrets");
    let log = t.path("server.log");
    let s = Served::start_logged(
        &t,
        &["--listen", "127.0.0.1:0"],
        std::fs::File::create(&log).unwrap(),
    );
    let (addr, token) = tcp_address(&t);
    let secret = "hunter2-SECRET-7f3a";
    let mut seen = Vec::new();
    for hello in [
        format!(r#"{{"protocol":4,"token":"{secret}"}}"#),
        format!(r#"{{"protocol":"{secret}","token":"{token}"}}"#),
        format!(r#"{{"protocol":4,"token":"{token}{secret}"}}"#),
        format!(r#"{{"protocol":4,"token":"{}"}}"#, &token[..token.len() - 1]),
        format!("{{not json {secret} {token}"),
    ] {
        for reply in json_exchange(&addr, &[hello, r#"{"op":"status"}"#.into()]) {
            assert_ne!(reply["ok"], true, "{reply}");
            seen.push(reply.to_string());
        }
    }
    let ok = json_exchange(
        &addr,
        &[format!(r#"{{"protocol":4,"token":"{token}"}}"#), r#"{"op":"status"}"#.into()],
    );
    assert_eq!(ok[1]["ok"], true, "{ok:?}");
    seen.push(ok[1].to_string());
    let mut garbage = UnixStream::connect(socket_path(&t)).unwrap();
    let _ = garbage.write_all(&frame(1, format!("{{\"token\":\"{secret}\"").as_bytes()));
    drop(garbage);
    seen.push(status(&t));
    let q = util::tg_command(&t, t.path("repo")).args(["--stats", "-c", "needle"]).output();
    seen.push(String::from_utf8_lossy(&q.unwrap().stderr).into_owned());
    drop(s);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.starts_with("tg: serving "), "the log was captured: {logged}");
    seen.push(logged);
    for text in &seen {
        assert!(!text.contains(&token), "the token shows: {text}");
        assert!(!text.contains(secret), "a refused client's bytes show: {text}");
    }
}

/// A `candidates` request whose query is garbage is refused and the
/// connection goes on; one whose query frame never comes, or comes as
/// another kind, closes that connection only; a well-formed one is
/// answered with the paths to read.
#[test]
fn malformed_candidate_requests_close_only_their_connection() {
    let (t, _s, _, _, sock) = served_on_tcp("bad_candidates");
    let hello = frame(1, br#"{"protocol": 4}"#);
    let request = frame(2, br#"{"op": "candidates"}"#);
    let root_scope = frame(4, &[0, 0, 0, 0, 0]);
    // Reads frames until the connection ends or stays silent for 5 s.
    let replies = |c: &mut UnixStream| {
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut all = Vec::new();
        let _ = c.read_to_end(&mut all);
        String::from_utf8_lossy(&all).into_owned()
    };
    // Garbage query bytes: refused, then a status on the same connection.
    let mut c = UnixStream::connect(&sock).unwrap();
    let mut msg =
        [hello.clone(), request.clone(), frame(5, &[9, 9, 9]), root_scope.clone()].concat();
    msg.extend(frame(2, br#"{"op": "status"}"#));
    msg.extend(frame(2, br#"{"op": "stop-not"}"#));
    c.write_all(&msg).unwrap();
    c.shutdown(std::net::Shutdown::Write).unwrap();
    let got = replies(&mut c);
    assert!(got.contains("bad query bytes"), "{got}");
    assert!(got.contains("\"pid\""), "the connection went on: {got}");
    // A paths frame where the query should be: the connection closes.
    let mut c = UnixStream::connect(&sock).unwrap();
    c.write_all(&[hello.clone(), request.clone(), root_scope.clone()].concat()).unwrap();
    let got = replies(&mut c);
    assert!(!got.contains("\"ready\""), "{got}");
    // The trigram "nee" (tag 2): answered with the paths to read.
    let mut c = UnixStream::connect(&sock).unwrap();
    let query = frame(5, &[2, b'n', b'e', b'e']);
    c.write_all(&[hello, request, query, root_scope].concat()).unwrap();
    c.shutdown(std::net::Shutdown::Write).unwrap();
    let got = replies(&mut c);
    assert!(got.contains("\"ready\":true") && got.contains("d0/f000.txt"), "{got}");
    assert!(!got.contains("d1/f001.txt"), "a file without the trigram was listed: {got}");
    assert!(served(&t), "the server still answers queries");
}
