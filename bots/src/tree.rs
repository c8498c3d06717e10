//! The search tree of information-set MCTS, flat in memory: one `Vec` of fixed-size nodes and
//! one of edges, each node's children a block of edges (action, child) sorted by action (no
//! allocation per node), built once per search with room for every node it can add. A node's
//! children are read from its block at once rather than chased from sibling to sibling: in a
//! tree too large for the cache, that chase was most of what offering a node cost.

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
    /// The action that leads here from the parent (below an action, in a tree that branches
    /// on what the seat observes: the observation's key).
    pub action: ActionId,
    /// Its children: `edges[at..at + len]`, in the order of their actions, in a block of
    /// [`block_room`]`(len)` edges.
    at: u32,
    len: u32,
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
        Node { action, at: 0, len: 0, visits: 0, available: 1, mover, mean: 0.0 }
    }
}

/// A link from a node to a child: the child's action (or observation key) beside its index,
/// so that a node's children are read from one block of memory, not chased node by node.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Edge {
    action: ActionId,
    child: u32,
}

/// The edges a node of `len` children has room for: blocks of 4, 8, 16 … (a node that
/// outgrows its block moves to one twice as large at the end).
#[inline]
fn block_room(len: u32) -> u32 {
    len.next_power_of_two().max(4)
}

/// The search tree (see the module).
pub struct Tree {
    pub(crate) nodes: Vec<Node>,
    /// Every node's children, a block per node.
    edges: Vec<Edge>,
    /// The root's legal actions in id order (the searching seat's own, the same in every
    /// determinization), once the root has been offered them ...
    root_actions: Vec<ActionId>,
    /// ... and the root's child for each (`NONE`: untried): the root, passed through in every
    /// iteration, is offered without looking at its children.
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
        let capacity = capacity.clamp(1, 1 << 20);
        let mut nodes = Vec::with_capacity(capacity);
        nodes.push(Node::new(0, 0));
        nodes[0].available = 0;
        // Every node but the root is an edge; blocks are at most half empty.
        let edges = Vec::with_capacity(2 * capacity);
        Tree { nodes, edges, root_actions: Vec::new(), root_children: Vec::new() }
    }

    /// Back to the root alone, keeping the memory.
    pub(crate) fn clear(&mut self) {
        self.nodes.truncate(1);
        self.nodes[0] = Node::new(0, 0);
        self.nodes[0].available = 0;
        self.edges.clear();
        self.root_actions.clear();
        self.root_children.clear();
    }

    /// The children of `node`, in action order.
    #[inline]
    fn edges_of(&self, node: u32) -> &[Edge] {
        let n = &self.nodes[node as usize];
        &self.edges[n.at as usize..][..n.len as usize]
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
        let edges = self.edges_of(node);
        if edges.len() <= FEW {
            for &a in legal {
                match edges.iter().find(|e| e.action == a) {
                    Some(e) => out.available.push(e.child),
                    None => out.untried.push(a),
                }
            }
            return;
        }
        if edges.len() > TABLED_CHILDREN {
            return self.offer_sorted(node, legal, out);
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
        for e in edges {
            let mut i = slot_of(e.action);
            while out.slots[i].stamp == stamp {
                i = (i + 1) & (SLOTS - 1);
            }
            out.slots[i] = Slot { stamp, action: e.action, child: e.child };
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
        let mut edges = self.edges_of(node).iter().peekable();
        for &a in sorted.iter() {
            while edges.next_if(|e| e.action < a).is_some() {}
            match edges.next_if(|e| e.action == a) {
                Some(e) => available.push(e.child),
                None => untried.push(a),
            }
        }
    }

    /// The child of `node` for `action` (or for an observation key, below an action), if any.
    pub(crate) fn child(&self, node: u32, action: ActionId) -> Option<u32> {
        let edges = self.edges_of(node);
        if edges.len() <= FEW {
            return edges.iter().find(|e| e.action == action).map(|e| e.child);
        }
        edges.binary_search_by_key(&action, |e| e.action).ok().map(|i| edges[i].child)
    }

    /// This tree with room for `room` nodes in all.
    pub(crate) fn grown(mut self, room: usize) -> Tree {
        let more = room.saturating_sub(self.nodes.len()).min(1 << 20);
        self.nodes.reserve(more);
        self.edges.reserve(2 * more);
        self
    }

    /// The subtree under `node` as a tree of its own, `node` its root: what a search keeps for
    /// the seat's next decision, reached from here. Room for `room` nodes at first (as
    /// [`Tree::new`]); `None` (and the copy stopped) once it would hold more than `most`.
    pub(crate) fn subtree(&self, node: u32, room: usize, most: usize) -> Option<Tree> {
        let mut t = Tree::new(room);
        t.nodes[0] = Node { at: 0, len: 0, ..self.nodes[node as usize] };
        let mut stack = vec![(node, 0u32)];
        while let Some((old, new)) = stack.pop() {
            let edges = self.edges_of(old);
            if edges.is_empty() {
                continue;
            }
            if t.nodes.len() + edges.len() > most {
                return None;
            }
            let at = t.edges.len() as u32;
            t.nodes[new as usize].at = at;
            t.nodes[new as usize].len = edges.len() as u32;
            for e in edges {
                let id = t.nodes.len() as u32;
                t.nodes.push(Node { at: 0, len: 0, ..self.nodes[e.child as usize] });
                t.edges.push(Edge { action: e.action, child: id });
                stack.push((e.child, id));
            }
            let block = block_room(edges.len() as u32) as usize;
            t.edges.resize(at as usize + block, Edge { action: 0, child: NONE });
        }
        Some(t)
    }

    /// Link `child` below `parent` by `action` (not yet a child there), in action order.
    fn link(&mut self, parent: u32, action: ActionId, child: u32) {
        let Node { at, len, .. } = self.nodes[parent as usize];
        let (mut at, len) = (at as usize, len as usize);
        if len == 0 || len as u32 == block_room(len as u32) {
            // A first block, or one twice as large: at the end.
            let moved = self.edges.len();
            let block = block_room(len as u32 + 1) as usize;
            self.edges.extend_from_within(at..at + len);
            self.edges.resize(moved + block, Edge { action: 0, child: NONE });
            at = moved;
            self.nodes[parent as usize].at = at as u32;
        }
        let block = &mut self.edges[at..at + len + 1];
        let i = block[..len].partition_point(|e| e.action < action);
        block.copy_within(i..len, i + 1);
        block[i] = Edge { action, child };
        self.nodes[parent as usize].len += 1;
    }

    /// A new child of `parent` for `action` (not yet a child).
    pub(crate) fn add_child(&mut self, parent: u32, action: ActionId, mover: u8) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node::new(action, mover));
        self.link(parent, action, id);
        if parent == 0
            && let Ok(i) = self.root_actions.binary_search(&action)
        {
            self.root_children[i] = id;
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
        self.nodes.push(Node::new(key, 0));
        self.link(parent, key, id);
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
            self.edges_of(0).iter().for_each(|e| count(self.nodes[e.child as usize].visits));
        } else {
            // Only the children legal now (a kept root may have others, from earlier samples).
            self.root_children.iter().filter(|&&c| c != NONE).for_each(|&c| count(self.nodes[c as usize].visits));
        }
        first > second.saturating_add(remaining)
    }

    /// The children of `node`: (action, visits, total reward), in action order.
    pub(crate) fn children(&self, node: u32) -> Vec<(ActionId, u32, f64)> {
        self.edges_of(node)
            .iter()
            .map(|e| {
                let n = &self.nodes[e.child as usize];
                (e.action, n.visits, n.mean * f64::from(n.visits))
            })
            .collect()
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

    /// Children added in any order, to nodes growing side by side (so that their blocks move
    /// past each other), are found by their actions and listed in action order.
    #[test]
    fn children_outgrowing_their_blocks_are_kept_in_order() {
        use rand::{RngExt, SeedableRng};
        let mut rng = engine::core::SmallRng::seed_from_u64(9);
        let mut tree = Tree::new(4);
        let first = tree.add_child(0, 1, 0);
        let parents = [first, tree.add_child(0, 2, 0)];
        // Actions below the first; actions and observation keys below the second.
        let mut added: [Vec<(ActionId, u32)>; 2] = Default::default();
        for _ in 0..600 {
            let k = rng.random_range(0..3);
            let (p, key): (usize, ActionId) = (k.min(1), rng.random_range(10..100_000));
            if tree.child(parents[p], key).is_some() {
                continue;
            }
            let child = if k == 2 { tree.outcome(parents[p], key) } else { tree.add_child(parents[p], key, 0) };
            added[p].push((key, child));
        }
        for (k, mut want) in added.into_iter().enumerate() {
            for &(key, child) in &want {
                assert_eq!(tree.child(parents[k], key), Some(child));
            }
            want.sort_unstable();
            let got: Vec<(ActionId, u32)> = tree.edges_of(parents[k]).iter().map(|e| (e.action, e.child)).collect();
            assert_eq!(got, want, "parent {k}: every child, in action order");
            assert_eq!(tree.children(parents[k]).len(), want.len());
            assert_eq!(tree.child(parents[k], 5), None);
        }
        let sub = tree.subtree(parents[0], 8, usize::MAX).expect("no bound");
        assert_eq!(sub.children(0), tree.children(parents[0]));
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
