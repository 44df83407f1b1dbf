//! fib(n) with rayon::join at every internal node, on a pool of -t threads
//! (default 1): the per-join cost tsys's non-inlined Fork+Join is measured
//! against (bench/forkjoin-vs-rayon.sh).
//!
//! Every call with n >= 2 makes one join, so fib(n) makes fib(n+1)-1 joins,
//! the same count as tsys's spawns for `tsys run fib --inline off`.

use std::time::Instant;

fn fib(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = rayon::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn exact(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        let t = a + b;
        a = b;
        b = t;
    }
    a
}

fn usage() -> ! {
    eprintln!("usage: fib-rayon [-n N] [-t THREADS]");
    std::process::exit(2)
}

fn main() {
    let (mut n, mut threads) = (32u32, 1usize);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let v = args.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "-n" => n = v.parse().unwrap_or_else(|_| usage()),
            "-t" => threads = v.parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    }
    if n > 92 || threads == 0 {
        usage();
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon: building the pool");
    // Start the pool's threads before the clock does.
    pool.install(|| fib(2));
    let start = Instant::now();
    let result = pool.install(|| fib(n));
    let secs = start.elapsed().as_secs_f64();
    let joins = exact(n + 1) - 1;
    let verified = result == exact(n);
    println!(
        "{{\"n\":{},\"threads\":{},\"result\":{},\"verified\":{},\"seconds\":{:.9},\"joins\":{},\"ns_per_join\":{:.3}}}",
        n,
        threads,
        result,
        verified,
        secs,
        joins,
        secs * 1e9 / joins as f64
    );
    if !verified {
        eprintln!("fib-rayon: fib({}) = {}, want {}", n, result, exact(n));
        std::process::exit(1);
    }
}
