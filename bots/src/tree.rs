//! The search tree of information-set MCTS, flat in memory: one `Vec` of fixed-size nodes,
//! children as a linked list sorted by action (no allocation per node), built once per search
//! with room for every node it can add.

use engine::core::{ActionId, Game};

const NONE: u32 = u32::MAX;

/// Counts below this are looked up in tables rather than computed.
const TABLED: usize = 4096;

/// `√(ln n)` and `1/√n` for the small counts the search meets most.
struct Tables {
    sqrt_ln: Vec<f64>,
    rsqrt: Vec<f64>,
}

fn tables() -> &'static Tables {
    static TABLES: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| Tables {
        sqrt_ln: (0..TABLED as u32).map(|k| (k.max(1) as f64).ln().sqrt()).collect(),
        rsqrt: (0..TABLED as u32).map(|k| 1.0 / (k.max(1) as f64).sqrt()).collect(),
    })
}

/// The exploration term `√(ln available / visits)`, from the tables where the counts are small.
#[inline]
fn exploration(t: &Tables, available: u32, visits: u32) -> f64 {
    match (t.sqrt_ln.get(available as usize), t.rsqrt.get(visits as usize)) {
        (Some(a), Some(v)) => a * v,
        _ => (f64::from(available).ln() / f64::from(visits)).sqrt(),
    }
}

/// Play `action`, taken from `g`'s own list of legal actions: the list already vouches for it,
/// so the engine's second check (`apply` lists them again) is skipped.
#[inline]
pub fn step<G: Game>(g: &mut G, action: ActionId) {
    debug_assert!(!g.is_terminal());
    let a = g.decode(action).expect("a listed action decodes");
    debug_assert!(g.is_listed(action, a), "action {action} is not legal");
    g.perform(a);
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// The action that leads here from the parent.
    pub action: ActionId,
    pub first_child: u32,
    pub next_sibling: u32,
    pub visits: u32,
    /// Iterations in which this node was legal when its parent was passed through.
    pub available: u32,
    /// The seat that chose the action (whose reward this node accumulates).
    pub mover: u8,
    /// The mean reward of that seat over the visits.
    pub mean: f64,
}

impl Node {
    fn new(action: ActionId, mover: u8) -> Node {
        Node { action, first_child: NONE, next_sibling: NONE, visits: 0, available: 1, mover, mean: 0.0 }
    }
}

/// The search tree (see the module).
pub struct Tree {
    pub(crate) nodes: Vec<Node>,
    /// The root's legal actions in id order (the searching seat's own, the same in every
    /// determinization), once the root has been offered them ...
    root_actions: Vec<ActionId>,
    /// ... and the root's child for each (`NONE`: untried): the root, passed through in every
    /// iteration, is offered without sorting its actions or walking its children.
    root_children: Vec<u32>,
}

/// What one node offers in one determinization: the legal actions without a child yet, and
/// the children legal there (both in the order of the legal list).
#[derive(Default)]
pub(crate) struct Offer {
    pub untried: Vec<ActionId>,
    pub available: Vec<u32>,
    /// An open-addressing table of a node's children by action, valid where its stamp is
    /// the current one (so that it is never cleared), and the legal actions sorted, for nodes
    /// with more children than the table holds.
    slots: Vec<Slot>,
    stamp: u32,
    sorted: Vec<ActionId>,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    stamp: u32,
    action: ActionId,
    child: u32,
}

/// Slots in the table (a power of two), and the most children it takes (half full at most).
const SLOTS: usize = 128;
const TABLED_CHILDREN: usize = SLOTS / 2;
/// Up to this many children are compared with the legal actions one by one.
const FEW: usize = 8;

#[inline]
fn slot_of(action: ActionId) -> usize {
    (action.wrapping_mul(0x9E37_79B1) >> (32 - SLOTS.trailing_zeros())) as usize
}

impl Tree {
    /// An empty tree (the root alone) with room for `capacity` nodes (up to a million at
    /// first; it grows past that).
    pub(crate) fn new(capacity: usize) -> Tree {
        let mut nodes = Vec::with_capacity(capacity.clamp(1, 1 << 20));
        nodes.push(Node::new(0, 0));
        nodes[0].available = 0;
        Tree { nodes, root_actions: Vec::new(), root_children: Vec::new() }
    }

    /// Back to the root alone, keeping the memory.
    pub(crate) fn clear(&mut self) {
        self.nodes.truncate(1);
        self.nodes[0] = Node::new(0, 0);
        self.nodes[0].available = 0;
        self.root_actions.clear();
        self.root_children.clear();
    }

    /// [`Tree::offer`] at the root, whose legal actions are the same in every determinization.
    pub(crate) fn offer_root(&mut self, legal: &[ActionId], out: &mut Offer) {
        if self.root_actions.is_empty() {
            self.root_actions.extend_from_slice(legal);
            self.root_actions.sort_unstable();
            // A root kept from an earlier search has children already.
            let children: Vec<u32> = self.root_actions.iter().map(|&a| self.child(0, a).unwrap_or(NONE)).collect();
            self.root_children = children;
        }
        debug_assert!({
            let mut sorted = legal.to_vec();
            sorted.sort_unstable();
            sorted == self.root_actions
        });
        out.untried.clear();
        out.available.clear();
        for (&a, &c) in self.root_actions.iter().zip(&self.root_children) {
            if c == NONE {
                out.untried.push(a);
            } else {
                out.available.push(c);
            }
        }
    }

    /// Split `legal` at `node` into untried actions and available children. The games list
    /// their actions in an order of their own: up to 8 children are compared with each legal
    /// action directly, up to 64 looked up in a table rather than the list sorted, and past
    /// that the sorted list is walked beside them.
    pub(crate) fn offer(&self, node: u32, legal: &[ActionId], out: &mut Offer) {
        out.untried.clear();
        out.available.clear();
        // The first few children, read once.
        let mut few = [(0 as ActionId, NONE); FEW];
        let (mut k, mut c) = (0, self.nodes[node as usize].first_child);
        while c != NONE && k < FEW {
            few[k] = (self.nodes[c as usize].action, c);
            k += 1;
            c = self.nodes[c as usize].next_sibling;
        }
        if c == NONE {
            let few = &few[..k];
            for &a in legal {
                match few.iter().find(|f| f.0 == a) {
                    Some(f) => out.available.push(f.1),
                    None => out.untried.push(a),
                }
            }
            return;
        }
        if out.slots.is_empty() {
            out.slots.resize(SLOTS, Slot::default());
        }
        out.stamp = out.stamp.wrapping_add(1);
        if out.stamp == 0 {
            out.slots.fill(Slot::default());
            out.stamp = 1;
        }
        let stamp = out.stamp;
        let mut put = |action: ActionId, child: u32| {
            let mut i = slot_of(action);
            while out.slots[i].stamp == stamp {
                i = (i + 1) & (SLOTS - 1);
            }
            out.slots[i] = Slot { stamp, action, child };
        };
        for &(action, child) in &few {
            put(action, child);
        }
        // The children past the first few (`c` is the next).
        let mut children = FEW;
        while c != NONE {
            children += 1;
            if children > TABLED_CHILDREN {
                return self.offer_sorted(node, legal, out);
            }
            put(self.nodes[c as usize].action, c);
            c = self.nodes[c as usize].next_sibling;
        }
        for &a in legal {
            let mut i = slot_of(a);
            loop {
                let s = out.slots[i];
                if s.stamp != stamp {
                    out.untried.push(a);
                    break;
                }
                if s.action == a {
                    out.available.push(s.child);
                    break;
                }
                i = (i + 1) & (SLOTS - 1);
            }
        }
    }

    /// [`Tree::offer`] for a node of many children: `legal` sorted and walked beside them (in
    /// action order).
    fn offer_sorted(&self, node: u32, legal: &[ActionId], out: &mut Offer) {
        let Offer { untried, available, sorted, .. } = out;
        sorted.clear();
        sorted.extend_from_slice(legal);
        sorted.sort_unstable();
        untried.clear();
        available.clear();
        let mut c = self.nodes[node as usize].first_child;
        for &a in sorted.iter() {
            while c != NONE && self.nodes[c as usize].action < a {
                c = self.nodes[c as usize].next_sibling;
            }
            if c != NONE && self.nodes[c as usize].action == a {
                available.push(c);
                c = self.nodes[c as usize].next_sibling;
            } else {
                untried.push(a);
            }
        }
    }

    /// The child of `node` for `action` (or for an observation key, below an action), if any.
    pub(crate) fn child(&self, node: u32, action: ActionId) -> Option<u32> {
        let mut c = self.nodes[node as usize].first_child;
        while c != NONE {
            if self.nodes[c as usize].action == action {
                return Some(c);
            }
            c = self.nodes[c as usize].next_sibling;
        }
        None
    }

    /// This tree with room for `room` nodes in all.
    pub(crate) fn grown(mut self, room: usize) -> Tree {
        self.nodes.reserve(room.saturating_sub(self.nodes.len()).min(1 << 20));
        self
    }

    /// The subtree under `node` as a tree of its own, `node` its root: what a search keeps for
    /// the seat's next decision, reached from here. Room for `room` nodes at first (as
    /// [`Tree::new`]); `None` (and the copy stopped) once it would hold more than `most`.
    pub(crate) fn subtree(&self, node: u32, room: usize, most: usize) -> Option<Tree> {
        let mut t = Tree::new(room);
        t.nodes[0] = Node { first_child: NONE, next_sibling: NONE, ..self.nodes[node as usize] };
        let mut stack = vec![(node, 0u32)];
        while let Some((old, new)) = stack.pop() {
            let (mut c, mut prev) = (self.nodes[old as usize].first_child, NONE);
            while c != NONE {
                let id = t.nodes.len() as u32;
                if id as usize >= most {
                    return None;
                }
                t.nodes.push(Node { first_child: NONE, next_sibling: NONE, ..self.nodes[c as usize] });
                if prev == NONE {
                    t.nodes[new as usize].first_child = id;
                } else {
                    t.nodes[prev as usize].next_sibling = id;
                }
                prev = id;
                stack.push((c, id));
                c = self.nodes[c as usize].next_sibling;
            }
        }
        Some(t)
    }

    /// A new child of `parent` for `action` (not yet a child), kept in action order.
    pub(crate) fn add_child(&mut self, parent: u32, action: ActionId, mover: u8) -> u32 {
        let id = self.nodes.len() as u32;
        let mut node = Node::new(action, mover);
        let mut prev = NONE;
        let mut c = self.nodes[parent as usize].first_child;
        while c != NONE && self.nodes[c as usize].action < action {
            prev = c;
            c = self.nodes[c as usize].next_sibling;
        }
        node.next_sibling = c;
        self.nodes.push(node);
        if parent == 0
            && let Ok(i) = self.root_actions.binary_search(&action)
        {
            self.root_children[i] = id;
        }
        if prev == NONE {
            self.nodes[parent as usize].first_child = id;
        } else {
            self.nodes[prev as usize].next_sibling = id;
        }
        id
    }

    /// The child of action node `parent` for what the searching seat observed after the
    /// action (`key`), added if new: the tree branches on chance outcomes it can tell apart.
    pub(crate) fn outcome(&mut self, parent: u32, key: u32) -> u32 {
        if let Some(c) = self.child(parent, key) {
            return c;
        }
        let id = self.nodes.len() as u32;
        let mut node = Node::new(key, 0);
        node.next_sibling = self.nodes[parent as usize].first_child;
        self.nodes.push(node);
        self.nodes[parent as usize].first_child = id;
        id
    }

    /// Count one more availability for each of `available` and return the one with the best
    /// UCB (`mean + c·√(ln available / visits)`; ties: the first).
    pub(crate) fn select_ucb(&mut self, available: &[u32], c: f64) -> u32 {
        let t = tables();
        let mut best = (f64::MIN, NONE);
        for &id in available {
            let n = &mut self.nodes[id as usize];
            n.available += 1;
            let ucb = n.mean + c * exploration(t, n.available, n.visits);
            if ucb > best.0 {
                best = (ucb, id);
            }
        }
        best.1
    }

    /// Every node of `path` adds the reward of the seat that chose its action.
    pub(crate) fn backpropagate(&mut self, path: &[u32], rewards: &[f64]) {
        for &id in path {
            let n = &mut self.nodes[id as usize];
            n.visits += 1;
            n.mean += (rewards[n.mover as usize] - n.mean) / f64::from(n.visits);
        }
    }

    /// The root's most visited child leads every other by more than `remaining` visits: no
    /// further iteration can change which is most visited.
    pub(crate) fn settled(&self, remaining: u32) -> bool {
        let (mut first, mut second) = (0u32, 0u32);
        let mut count = |v: u32| {
            if v > first {
                second = first;
                first = v;
            } else if v > second {
                second = v;
            }
        };
        if self.root_actions.is_empty() {
            let mut c = self.nodes[0].first_child;
            while c != NONE {
                count(self.nodes[c as usize].visits);
                c = self.nodes[c as usize].next_sibling;
            }
        } else {
            // Only the children legal now (a kept root may have others, from earlier samples).
            self.root_children.iter().filter(|&&c| c != NONE).for_each(|&c| count(self.nodes[c as usize].visits));
        }
        first > second.saturating_add(remaining)
    }

    /// The children of `node`: (action, visits, total reward), in action order.
    pub(crate) fn children(&self, node: u32) -> Vec<(ActionId, u32, f64)> {
        let mut out = Vec::new();
        let mut c = self.nodes[node as usize].first_child;
        while c != NONE {
            let n = &self.nodes[c as usize];
            out.push((n.action, n.visits, n.mean * f64::from(n.visits)));
            c = n.next_sibling;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tabled_exploration_term_is_the_formula() {
        let t = tables();
        for available in (1..5000).step_by(7) {
            for visits in (1..available + 1).step_by(13) {
                let exact = (f64::from(available).ln() / f64::from(visits)).sqrt();
                let got = exploration(t, available, visits);
                assert!((got - exact).abs() <= 1e-12 * exact.max(1.0), "{available} {visits}: {got} vs {exact}");
            }
        }
    }

    #[test]
    fn the_table_and_the_sorted_walk_offer_the_same() {
        // Up to FEW children compared one by one, then the table, then the sorted walk.
        use rand::{RngExt, SeedableRng};
        let mut rng = engine::core::SmallRng::seed_from_u64(5);
        for children in [0usize, 1, 5, 8, 9, 40, 64, 65, 120] {
            let mut tree = Tree::new(256);
            let mut ids: Vec<ActionId> = (0..400).map(|k| k * 7 + 256 * (k % 3)).collect();
            for _ in 0..children {
                let a = ids.swap_remove(rng.random_range(0..ids.len()));
                tree.add_child(0, a, 0);
            }
            // Legal: some children and some untried, in an order of their own.
            let mut legal: Vec<ActionId> =
                tree.children(0).iter().map(|c| c.0).filter(|_| rng.random_bool(0.7)).collect();
            legal.extend(ids.iter().copied().filter(|_| rng.random_bool(0.05)));
            rand::seq::SliceRandom::shuffle(&mut legal[..], &mut rng);
            let (mut table, mut walk) = (Offer::default(), Offer::default());
            tree.offer(0, &legal, &mut table);
            tree.offer_sorted(0, &legal, &mut walk);
            for o in [&mut table, &mut walk] {
                o.untried.sort_unstable();
                o.available.sort_unstable();
            }
            assert_eq!((&table.untried, &table.available), (&walk.untried, &walk.available), "{children} children");
            assert_eq!(table.untried.len() + table.available.len(), legal.len());
        }
    }

    #[test]
    fn the_root_is_offered_as_any_node_is() {
        let mut tree = Tree::new(16);
        let legal = [9, 2, 7, 4];
        let (mut root, mut any) = (Offer::default(), Offer::default());
        for a in [7, 2] {
            tree.offer_root(&legal, &mut root);
            tree.add_child(0, a, 0);
        }
        tree.offer_root(&legal, &mut root);
        tree.offer_sorted(0, &legal, &mut any);
        assert_eq!((&root.untried, &root.available), (&any.untried, &any.available));
        assert_eq!(root.untried, [4, 9]);
        assert_eq!(root.available.iter().map(|&c| tree.nodes[c as usize].action).collect::<Vec<_>>(), [2, 7]);
    }

    #[test]
    fn a_node_keeps_the_mean_of_its_rewards() {
        let mut tree = Tree::new(4);
        let child = tree.add_child(0, 3, 1);
        let rewards = [[0.0, 1.0], [0.0, 0.25], [1.0, 0.5]];
        for r in &rewards {
            tree.backpropagate(&[0, child], r);
        }
        let stats = tree.children(0);
        assert_eq!(stats.len(), 1);
        let (action, visits, total) = stats[0];
        assert_eq!((action, visits), (3, 3));
        assert!((total - 1.75).abs() < 1e-12, "the seat that chose it: 1 + 0.25 + 0.5, got {total}");
    }

    /// A subtree keeps the nodes below its new root, their statistics and their order, and
    /// no more than it is allowed.
    #[test]
    fn a_subtree_is_the_tree_below_its_root() {
        let mut tree = Tree::new(16);
        let a = tree.add_child(0, 5, 0);
        let b = tree.add_child(0, 6, 0);
        let (a1, a2) = (tree.add_child(a, 2, 0), tree.add_child(a, 1, 0));
        let a21 = tree.add_child(a2, 8, 0);
        tree.add_child(b, 3, 0);
        for path in [[0, a, a1, a1], [0, a, a2, a21], [0, a, a2, a2]] {
            tree.backpropagate(&path[..if path[2] == path[3] { 3 } else { 4 }], &[1.0]);
        }
        let sub = tree.subtree(a, 8, 8).expect("room enough");
        assert_eq!(sub.nodes.len(), 4, "a, a1, a2, a21");
        assert_eq!(sub.nodes[0].visits, 3);
        assert_eq!(sub.children(0), tree.children(a));
        let sub_a2 = sub.child(0, 1).unwrap();
        assert_eq!(sub.children(sub_a2), tree.children(a2));
        assert!(tree.subtree(a, 8, 3).is_none(), "four nodes do not fit in three");
    }
}
