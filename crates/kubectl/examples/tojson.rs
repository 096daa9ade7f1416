//! Prints JSON from stdin as `kubectl get -o json` would (see `toyaml`).
//!
//! `cargo run -q -p warehouse-kubectl --example tojson < obj.json`
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .expect("stdin is readable");
    let v: serde_json::Value = serde_json::from_str(&s).expect("stdin holds JSON");
    println!("{}", warehouse_kubectl::printers::json::to_go_json(&v));
}
