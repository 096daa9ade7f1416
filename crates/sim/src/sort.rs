//! Stable sorting through one shared instance of the standard library's sort.
//!
//! `slice::sort_by` is generic over the element and the comparison, so every call
//! site compiles its own copy of the sorting algorithm (a few KB of WebAssembly
//! each). [`StableSort`] sorts the positions `0..len` instead, through one
//! non-generic function, then moves the elements into that order. The result is the
//! one `sort`, `sort_by` and `sort_by_key` give: the same stable algorithm, asked the
//! same comparisons of the same elements.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// The order of the positions `0..len` under `cmp`, by the standard stable sort.
#[inline(never)]
fn stable_order(len: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Moves the elements so that position `k` holds the element that was at
/// `order[k]`, following each cycle of the permutation once.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..v.len() {
        let mut at = start;
        loop {
            let from = order[at];
            if from == DONE {
                break;
            }
            order[at] = DONE;
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

/// `sort`, `sort_by` and `sort_by_key` (stable), sharing one copy of the algorithm.
pub trait StableSort<T> {
    /// As `slice::sort`.
    fn stable_sort(&mut self)
    where
        T: Ord;
    /// As `slice::sort_by`.
    fn stable_sort_by(&mut self, cmp: impl FnMut(&T, &T) -> Ordering);
    /// As `slice::sort_by_key`.
    fn stable_sort_by_key<K: Ord>(&mut self, key: impl FnMut(&T) -> K);
}

impl<T> StableSort<T> for [T] {
    fn stable_sort(&mut self)
    where
        T: Ord,
    {
        self.stable_sort_by(T::cmp);
    }

    fn stable_sort_by(&mut self, mut cmp: impl FnMut(&T, &T) -> Ordering) {
        if self.len() < 2 {
            return;
        }
        let items: &[T] = self;
        let order = stable_order(items.len(), &mut |a, b| cmp(&items[a], &items[b]));
        permute(self, order);
    }

    fn stable_sort_by_key<K: Ord>(&mut self, mut key: impl FnMut(&T) -> K) {
        self.stable_sort_by(|a, b| key(a).cmp(&key(b)));
    }
}

/// `collect()` into a `BTreeMap`, without a sort. `BTreeMap::from_iter` sorts its
/// pairs first, and the comparison it sorts by is a closure inside the generic
/// `from_iter`, so every iterator type collected compiles its own copy of the stable
/// sort. Inserting pair by pair gives the same map: for a repeated key the last
/// value wins, as in `collect()`.
pub trait CollectMap<K: Ord, V>: Iterator<Item = (K, V)> + Sized {
    /// As `collect::<BTreeMap<K, V>>()`.
    fn collect_map(self) -> BTreeMap<K, V> {
        let mut map = BTreeMap::new();
        for (k, v) in self {
            map.insert(k, v);
        }
        map
    }
}

impl<K: Ord, V, I: Iterator<Item = (K, V)>> CollectMap<K, V> for I {}

/// `collect()` into a `BTreeSet`, without a sort: `BTreeSet::from_iter` sorts its
/// items first, a copy of the stable sort for every item type. Inserting one by one
/// gives the same set.
pub trait CollectSet<T: Ord>: Iterator<Item = T> + Sized {
    /// As `collect::<BTreeSet<T>>()`.
    fn collect_set(self) -> BTreeSet<T> {
        let mut set = BTreeSet::new();
        for item in self {
            set.insert(item);
        }
        set
    }
}

impl<T: Ord, I: Iterator<Item = T>> CollectSet<T> for I {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same order as the standard library's stable sorts, ties included.
        #[test]
        #[allow(clippy::unnecessary_sort_by)] // sort_by itself is what is compared
        fn orders_as_the_standard_sorts(v in proptest::collection::vec((0u8..6, any::<u16>()), 0..200)) {
            let mut ours = v.clone();
            let mut std = v.clone();
            ours.stable_sort_by_key(|p| p.0);
            std.sort_by_key(|p| p.0);
            prop_assert_eq!(&ours, &std);
            ours.stable_sort_by(|a, b| b.0.cmp(&a.0));
            std.sort_by(|a, b| b.0.cmp(&a.0));
            prop_assert_eq!(&ours, &std);
            ours.stable_sort();
            std.sort();
            prop_assert_eq!(ours, std);
        }
    }

    proptest! {
        /// The same map as `collect()`, repeated keys included.
        #[test]
        fn collects_as_the_standard_map(v in proptest::collection::vec((0u8..20, any::<u16>()), 0..100)) {
            let ours = v.iter().copied().collect_map();
            let std: BTreeMap<u8, u16> = v.iter().copied().collect();
            prop_assert_eq!(ours, std);
            let ours = v.iter().copied().collect_set();
            let std: BTreeSet<(u8, u16)> = v.iter().copied().collect();
            prop_assert_eq!(ours, std);
        }
    }

    #[test]
    fn short_slices() {
        let mut empty: [u8; 0] = [];
        empty.stable_sort();
        let mut one = [1];
        one.stable_sort();
        assert_eq!(one, [1]);
        let mut v = vec!["b".to_string(), "a".to_string()];
        v.stable_sort();
        assert_eq!(v, ["a", "b"]);
    }
}
