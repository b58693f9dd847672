//! Where each physical piece of a game state lies on the mat: tower floors stacked on their
//! dice, the dice and meeples on the top floors, the roll, the mana pool, the spellbook boards
//! with their meeples, and each player's reserve.

use calibration::places::{
    BOARD_MM, PILLAR_RADIUS_MM, board_center, floor_top_mm, pillar_angle, pillar_point,
    reserve_point, spell_slots,
};
use calibration::{MatLayout, TablePoint};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rules::{Die, GameState, Meeple, PlayerColor, Rank, SpellId, TowerId};
use serde::{Deserialize, Serialize};

use crate::error::SynthError;

pub use calibration::places::TILE_MM;
pub use calibration::quality::DIE_SIZE_MM as DIE_MM;

/// Where a die or a meeple is, in the words of the game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "zone")]
pub enum Place {
    /// On a pillar of a tower floor (level 1 is the lowest); `buried` below the top floor.
    Tower {
        tower: TowerId,
        level: u8,
        pillar: u8,
        buried: bool,
    },
    RollArea,
    ManaPool,
    Spellbook {
        player: PlayerColor,
        spell: SpellId,
    },
    Reserve {
        player: PlayerColor,
    },
    /// Carried by a hand above the table (in rendered games).
    InHand,
}

#[derive(Clone, Copy, Debug)]
pub struct PlacedDie {
    pub die: Die,
    /// The centre of the face it lies on.
    pub at: TablePoint,
    pub place: Place,
}

#[derive(Clone, Copy, Debug)]
pub struct PlacedMeeple {
    pub meeple: Meeple,
    /// Between its feet.
    pub at: TablePoint,
    pub place: Place,
}

/// One floor tile of a tower, seen from above: a triangle with cut corners.
#[derive(Clone, Debug)]
pub struct FloorTile {
    pub tower: TowerId,
    pub level: u8,
    /// The height of its top face.
    pub top_mm: f64,
    pub corners: Vec<(f64, f64)>,
    pub pillars: [(f64, f64); 3],
    pub center: (f64, f64),
    /// A number that picks the tile's artwork.
    pub art: u32,
}

#[derive(Clone, Debug)]
pub struct Board {
    pub player: PlayerColor,
    pub center: (f64, f64),
    pub size_mm: [f64; 2],
    /// Slot centres, in the order of `SpellId::ALL`.
    pub slots: [(f64, f64); 6],
}

/// Every piece of one table.
#[derive(Clone, Debug, Default)]
pub struct TableLayout {
    pub dice: Vec<PlacedDie>,
    pub meeples: Vec<PlacedMeeple>,
    pub floors: Vec<FloorTile>,
    pub boards: Vec<Board>,
}

impl TableLayout {
    /// Where a die goes on a pillar of a tower's top floor.
    pub fn pillar_point(&self, tower: TowerId, pillar: usize) -> Option<TablePoint> {
        let floor = self
            .floors
            .iter()
            .filter(|f| f.tower == tower)
            .max_by_key(|f| f.level)?;
        let (x, y) = *floor.pillars.get(pillar)?;
        Some(TablePoint::on_mat(x, y).at_height(floor.top_mm))
    }
}

/// A generator for one piece: the same `seed` and `parts` always jitter it the same way, so a
/// piece stays put from frame to frame while others come and go.
pub fn rng_for(seed: u64, parts: &[u64]) -> ChaCha8Rng {
    let mixed = parts.iter().fold(seed ^ 0x7AB1_E517, |h, &p| {
        h.rotate_left(17).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ p
    });
    ChaCha8Rng::seed_from_u64(mixed)
}

/// Lays out `state` on `mat`; `seed` jitters positions a little, as hands would.
pub fn lay_out(state: &GameState, mat: &MatLayout, seed: u64) -> Result<TableLayout, SynthError> {
    let mut layout = TableLayout::default();
    for tower in state.towers() {
        lay_out_tower(&mut layout, tower, mat, seed)?;
    }
    let rng = &mut rng_for(seed, &[1, u64::from(state.round())]);
    let roll = zone(mat, "roll-area")?;
    let spots = scatter(rng, roll, state.roll().len());
    for (&die, (x, y)) in state.roll().iter().zip(spots) {
        layout.dice.push(PlacedDie {
            die,
            at: TablePoint::on_mat(x, y),
            place: Place::RollArea,
        });
    }
    let pool = zone(mat, "mana-pool")?;
    for (i, &die) in state.mana_pool().iter().enumerate() {
        let rng = &mut rng_for(seed, &[3, i as u64]);
        let (column, row) = ((i % 5) as f64, (i / 5) as f64);
        let x = pool[0] + 14.0 + column * 21.0 + rng.random_range(-2.0..2.0);
        let y = pool[1] + 16.0 + row * 24.0 + rng.random_range(-2.0..2.0);
        layout.dice.push(PlacedDie {
            die,
            at: TablePoint::on_mat(x, y),
            place: Place::ManaPool,
        });
    }
    for (seat, player) in state.players().iter().enumerate() {
        let name = format!("spellbook-{}", seat + 1);
        let area = mat
            .zone(&name)
            .ok_or_else(|| SynthError::Layout(format!("the mat has no zone {name}")))?;
        let [cx, cy] = board_center(area);
        let center = (cx, cy);
        let slots = spell_slots(area).map(|[x, y]| (x, y));
        for (i, rank) in player.spellbook.iter().enumerate() {
            if let Some(rank) = *rank {
                let (x, y) = slots[i];
                let rng = &mut rng_for(seed, &[4, seat as u64, i as u64]);
                layout.meeples.push(PlacedMeeple {
                    meeple: Meeple {
                        player: player.color,
                        rank,
                    },
                    at: TablePoint::on_mat(x + rng.random_range(-2.0..2.0), y + 3.0),
                    place: Place::Spellbook {
                        player: player.color,
                        spell: SpellId::ALL[i],
                    },
                });
            }
        }
        let reserve: Vec<Rank> = player.reserve_ranks().collect();
        for (i, rank) in reserve.into_iter().enumerate() {
            let rng = &mut rng_for(seed, &[5, seat as u64, i as u64]);
            let [x, y] = reserve_point(area, i);
            let x = x + rng.random_range(-1.5..1.5);
            let y = y + rng.random_range(-1.5..1.5);
            layout.meeples.push(PlacedMeeple {
                meeple: Meeple {
                    player: player.color,
                    rank,
                },
                at: TablePoint::on_mat(x, y),
                place: Place::Reserve {
                    player: player.color,
                },
            });
        }
        layout.boards.push(Board {
            player: player.color,
            center,
            size_mm: BOARD_MM,
            slots,
        });
    }
    Ok(layout)
}

/// The mat zone where a tower stands.
pub fn tower_zone(tower: TowerId) -> &'static str {
    match tower {
        TowerId::A => "tower-a",
        TowerId::B => "tower-b",
        TowerId::C => "tower-c",
        TowerId::Central => "tower-central",
    }
}

fn lay_out_tower(
    layout: &mut TableLayout,
    tower: &rules::Tower,
    mat: &MatLayout,
    seed: u64,
) -> Result<(), SynthError> {
    let area = zone(mat, tower_zone(tower.id))?;
    let center = ((area[0] + area[2]) / 2.0, (area[1] + area[3]) / 2.0);
    let mut buried = tower.buried_dice.iter();
    let mut foundation = tower.foundation.iter();
    let top_level = tower.level;
    for level in 1..=top_level {
        let rng = &mut rng_for(seed, &[2, tower.id as u64, u64::from(level)]);
        let turn = rng.random_range(-0.12..0.12);
        let jitter = (rng.random_range(-1.5..1.5), rng.random_range(-1.5..1.5));
        let c = (center.0 + jitter.0, center.1 + jitter.1);
        let top_mm = floor_top_mm(level);
        let pillars: [(f64, f64); 3] = std::array::from_fn(|k| {
            let [x, y] = pillar_point([c.0, c.1], k, turn);
            (x, y)
        });
        // A triangle with cut corners around the pillars.
        let mut corners = Vec::with_capacity(6);
        for k in 0..3 {
            for side in [-0.33, 0.33] {
                let a = pillar_angle(k, turn) + side;
                let r = PILLAR_RADIUS_MM + 13.0;
                corners.push((c.0 + r * a.cos(), c.1 + r * a.sin()));
            }
        }
        layout.floors.push(FloorTile {
            tower: tower.id,
            level,
            top_mm,
            corners,
            pillars,
            center: c,
            art: tower.id as u32 * 31 + u32::from(level) * 7 + rng.random_range(0..4),
        });
        let on_pillar = |k: usize| {
            let (x, y) = pillars[k];
            let rng = &mut rng_for(seed, &[6, tower.id as u64, u64::from(level), k as u64]);
            TablePoint::on_mat(
                x + rng.random_range(-1.2..1.2),
                y + rng.random_range(-1.2..1.2),
            )
            .at_height(top_mm)
        };
        if level < top_level {
            for k in 0..3u8 {
                let place = Place::Tower {
                    tower: tower.id,
                    level,
                    pillar: k + 1,
                    buried: true,
                };
                let at = on_pillar(usize::from(k));
                if let Some(&die) = buried.next() {
                    layout.dice.push(PlacedDie { die, at, place });
                } else if let Some(&meeple) = foundation.next() {
                    layout.meeples.push(PlacedMeeple { meeple, at, place });
                }
            }
            continue;
        }
        for (k, pillar) in tower.pillars.iter().enumerate() {
            let Some(pillar) = pillar else { continue };
            let place = Place::Tower {
                tower: tower.id,
                level,
                pillar: k as u8 + 1,
                buried: false,
            };
            let at = on_pillar(k);
            let mut meeple_at = at;
            if let Some(die) = pillar.die {
                layout.dice.push(PlacedDie { die, at, place });
                meeple_at = at.at_height(at.height_mm + DIE_MM);
            }
            if let Some(meeple) = pillar.meeple {
                layout.meeples.push(PlacedMeeple {
                    meeple,
                    at: meeple_at,
                    place,
                });
            }
        }
    }
    Ok(())
}

/// A zone's bounds (left, top, right, bottom) in mm.
pub fn zone(mat: &MatLayout, name: &str) -> Result<[f64; 4], SynthError> {
    let zone = mat
        .zone(name)
        .ok_or_else(|| SynthError::Layout(format!("the mat has no zone {name}")))?;
    let [x, y] = zone.center_mm;
    let [w, h] = zone.size_mm;
    Ok([x - w / 2.0, y - h / 2.0, x + w / 2.0, y + h / 2.0])
}

/// `count` spots inside `area`, at least a die and a bit apart where there is room.
pub fn scatter(rng: &mut impl Rng, area: [f64; 4], count: usize) -> Vec<(f64, f64)> {
    let inset = DIE_MM * 0.7;
    let mut spots: Vec<(f64, f64)> = Vec::with_capacity(count);
    for _ in 0..count {
        let mut best = (0.0, 0.0);
        let mut best_gap = f64::NEG_INFINITY;
        for _ in 0..60 {
            let p = (
                rng.random_range(area[0] + inset..area[2] - inset),
                rng.random_range(area[1] + inset..area[3] - inset),
            );
            let gap = spots
                .iter()
                .map(|q| ((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2)).sqrt())
                .fold(f64::INFINITY, f64::min);
            if gap > best_gap {
                (best, best_gap) = (p, gap);
            }
            if gap > DIE_MM * 1.5 {
                break;
            }
        }
        spots.push(best);
    }
    spots
}
