// Metropolys in C++: the twin of city_envs/metropolys (rules.py, view.py, game.py's setup and JSON),
// playing the same match for the same seed. Function names follow rules.py and view.py.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../core/game.hpp"
#include "components.hpp"

namespace city_envs::native::metropolys {

// One bid of the call for proposals: rules.State.bids' (seat, nbhd, value).
struct Bid {
  int8_t seat = 0;
  int8_t nbhd = 0;
  int8_t value = 0;
};

struct Game {
  static constexpr const char* kName = "metropolys";
  static constexpr int kNumActions = cp::kNumActions;
  static constexpr int kObservationSize = cp::kObservationSize;
  static constexpr int kMinPlayers = 2;
  static constexpr int kMaxPlayers = 4;

  static constexpr int kN = cp::kNumNbhds;
  static constexpr int kFullSupply = (1 << cp::kNumBuildings) - 1;
  static constexpr int kMaxBids = cp::kNumBuildings;  // bid values rise strictly within 1..13
  static constexpr int kNbhd = 0, kValue = 1, kGameOver = -1;  // rules.Decision, rules.GAME_OVER

  // ----- rules.State
  int n = 0;
  bool expert = false;  // version: "family" or "expert"
  int num_removed = 0;
  std::array<int8_t, 2> removed{};  // districts out of play, sorted
  std::array<bool, kN> in_play{};
  std::array<int8_t, kN> token{};
  std::array<int8_t, kN> owner{};
  std::array<int8_t, kN> built_value{};
  std::array<int8_t, kN> bid_owner{};
  std::array<int8_t, kN> bid_value{};
  std::array<int, kMaxPlayers> supply{};
  std::array<int, kMaxPlayers> built{};
  std::array<std::array<int, 3>, kMaxPlayers> tokens{};
  int subway_card = -1;
  int arch_card = -1;
  std::array<int, kMaxPlayers> family_card{};
  std::array<int, kMaxPlayers> colour_card{};
  std::array<int, kMaxPlayers> area_card{};
  int opener = 0;
  std::array<Bid, kMaxBids> bids{};
  int num_bids = 0;
  int passed = 0;
  int decision = kNbhd;
  int actor = 0;
  int chosen = -1;
  int calls = 0;

  // ===== options (game.py) =====================================================================

  // The version option: false for "family", true for "expert".
  static bool option_expert(const json::Value& options) {
    const std::string& version = options.at("version").as_string("version");
    if (version != "family" && version != "expert") throw std::invalid_argument("invalid version " + version);
    return version == "expert";
  }

  // Metropolys._removed_districts: the option as sorted district ids; false when drawn by the seed.
  static bool option_removed(int num_players, const json::Value& options, int& count, std::array<int8_t, 2>& out) {
    const json::Value& value = options.at("removed_districts");
    if (value.is_null()) return false;
    std::vector<std::string> names;
    if (value.kind == json::Value::Kind::kString) {  // "south,west": comma-separated, stripped, empty parts dropped
      std::string part;
      auto flush = [&]() {
        const size_t first = part.find_first_not_of(" \t\n\r\f\v");
        if (first != std::string::npos) {
          const size_t last = part.find_last_not_of(" \t\n\r\f\v");
          names.push_back(part.substr(first, last - first + 1));
        }
        part.clear();
      };
      for (char c : value.text) {
        if (c == ',') flush();
        else part.push_back(c);
      }
      flush();
    } else {
      for (const json::Value& name : value.as_array("removed_districts", 4))
        names.push_back(name.as_string("removed_districts"));
    }
    const size_t wanted = num_players == 2 ? 2U : num_players == 3 ? 1U : 0U;
    std::vector<int> ids;
    for (const std::string& name : names) {
      int id = -1;
      for (int d : cp::kPeripheral)
        if (name == cp::kDistrictNames[static_cast<size_t>(d)]) id = d;
      if (id < 0 || std::find(ids.begin(), ids.end(), id) != ids.end())
        throw std::invalid_argument("invalid removed_districts for " + std::to_string(num_players) + " players");
      ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    bool allowed = ids.size() == wanted;
    if (allowed && wanted == 2) {
      allowed = false;
      for (const auto& pair : cp::kAdjacentPairs)
        if (std::min(pair[0], pair[1]) == ids[0] && std::max(pair[0], pair[1]) == ids[1]) allowed = true;
    }
    if (!allowed)
      throw std::invalid_argument("invalid removed_districts for " + std::to_string(num_players) + " players");
    count = static_cast<int>(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) out[i] = static_cast<int8_t>(ids[i]);
    return true;
  }

  // ===== setup (rules.new_state, Metropolys._setup) ===========================================
  void setup(int num_players, const json::Value& options, Random& chance) {
    *this = Game();
    n = num_players;
    expert = option_expert(options);
    const std::string& layout = options.at("layout").as_string("layout");
    if (layout != "random" && layout != "first_game") throw std::invalid_argument("invalid layout " + layout);
    const bool given = option_removed(n, options, num_removed, removed);
    const int64_t start = options.at("start_player").as_int("start_player", 0, INT64_MAX);
    if (start >= n) throw std::invalid_argument("invalid start_player " + std::to_string(start));
    if (!given) removed_districts(chance);
    for (int nb = 0; nb < kN; ++nb) in_play[nb] = !is_removed(cp::kDistrict[nb]);
    if (layout == "first_game") first_game_tokens();
    else random_tokens(chance);
    deal_secret_cards(chance);
    owner.fill(-1);
    built_value.fill(0);
    bid_owner.fill(-1);
    bid_value.fill(0);
    for (int seat = 0; seat < n; ++seat) supply[seat] = kFullSupply;
    opener = actor = static_cast<int>(start);
    decision = kNbhd;
  }

  bool is_removed(int district) const {
    for (int i = 0; i < num_removed; ++i)
      if (removed[i] == district) return true;
    return false;
  }

  // rules.removed_districts: 3 players drop one peripheral district, 2 players an adjacent pair.
  void removed_districts(Random& chance) {
    num_removed = 0;
    if (n == 3) {
      removed[0] = static_cast<int8_t>(cp::kPeripheral[static_cast<size_t>(chance.integers(4))]);
      num_removed = 1;
    } else if (n == 2) {
      const auto& pair = cp::kAdjacentPairs[static_cast<size_t>(chance.integers(4))];
      removed[0] = static_cast<int8_t>(std::min(pair[0], pair[1]));
      removed[1] = static_cast<int8_t>(std::max(pair[0], pair[1]));
      num_removed = 2;
    }
  }

  // rules.first_game_tokens
  void first_game_tokens() {
    token.fill(cp::kNoToken);
    for (const auto& spot : cp::kFirstGameLayout)
      if (!is_removed(spot[0])) token[spot[2]] = static_cast<int8_t>(spot[1]);
    if (n == 2)
      for (const auto& change : cp::kFirstGameTwoPlayerChanges) token[change[0]] = static_cast<int8_t>(change[1]);
  }

  // rules.random_tokens: the pool shuffled, then each district's spots drawn; tokens popped from the end.
  void random_tokens(Random& chance) {
    std::vector<int> pool;
    for (const auto& kind_count : cp::kTokensPerCount[static_cast<size_t>(n - 2)])
      for (int i = 0; i < kind_count[1]; ++i) pool.push_back(kind_count[0]);
    const std::vector<int64_t> order = chance.permutation(static_cast<int64_t>(pool.size()));
    std::vector<int> shuffled;
    for (int64_t i : order) shuffled.push_back(pool[static_cast<size_t>(i)]);
    token.fill(cp::kNoToken);
    for (int district = 0; district < cp::kNumDistricts; ++district) {
      if (is_removed(district)) continue;
      std::vector<int> spots;
      for (int nb = 0; nb < kN; ++nb)
        if (cp::kDistrict[nb] == district && cp::kTokenOk[nb]) spots.push_back(nb);
      std::vector<int64_t> picked = chance.choice_without_replacement(static_cast<int64_t>(spots.size()),
                                                                      cp::kTokenSpots[static_cast<size_t>(district)]);
      std::sort(picked.begin(), picked.end());
      for (int64_t index : picked) {
        token[spots[static_cast<size_t>(index)]] = static_cast<int8_t>(shuffled.back());
        shuffled.pop_back();
      }
    }
  }

  // The family Area cards in play: all four but the borders card with 2 players.
  int family_deck(int* deck) const {
    int size = 0;
    for (int card = 0; card < 4; ++card)
      if (!(n == 2 && card == cp::kFamilyBorders)) deck[size++] = card;
    return size;
  }

  // rules.deal_secret_cards: (family, colour, area) per seat, -1 where the version has none.
  void deal_secret_cards(Random& chance) {
    family_card.fill(-1);
    colour_card.fill(-1);
    area_card.fill(-1);
    if (!expert) {
      int deck[4];
      const int size = family_deck(deck);
      const std::vector<int64_t> order = chance.permutation(size);
      for (int seat = 0; seat < n; ++seat) family_card[seat] = deck[order[static_cast<size_t>(seat)]];
      return;
    }
    const std::vector<int64_t> colours = chance.permutation(5);
    const std::vector<int64_t> areas = chance.permutation(5);
    for (int seat = 0; seat < n; ++seat) {
      colour_card[seat] = static_cast<int>(colours[static_cast<size_t>(seat)]);
      area_card[seat] = static_cast<int>(areas[static_cast<size_t>(seat)]);
    }
  }

  // ===== legal actions (rules.py) ==============================================================
  bool is_free(int nbhd) const { return in_play[nbhd] && owner[nbhd] < 0 && bid_owner[nbhd] < 0; }

  bool has_free_neighbour(int nbhd) const {
    for (int i = 0; i < cp::kAdjCount[nbhd]; ++i)
      if (is_free(cp::kAdj[nbhd][i])) return true;
    return false;
  }

  static int values_above(int mask, int value) { return mask & ~((1 << value) - 1); }

  // rules.legal_values
  int legal_values(int seat) const {
    if (num_bids == 0) return supply[seat];
    return values_above(supply[seat], bids[num_bids - 1].value);
  }

  // rules.legal_nbhds, as a flag per neighbourhood
  void legal_nbhds(bool* out) const {
    if (num_bids == 0) {
      for (int nb = 0; nb < kN; ++nb) out[nb] = is_free(nb);
      return;
    }
    for (int nb = 0; nb < kN; ++nb) out[nb] = false;
    const int top = bids[num_bids - 1].nbhd;
    for (int i = 0; i < cp::kAdjCount[top]; ++i) {
      const int nb = cp::kAdj[top][i];
      if (is_free(nb)) out[nb] = true;
    }
  }

  // rules.legal_actions
  void legal_actions(uint8_t* mask) const {
    std::memset(mask, 0, kNumActions);
    if (decision == kNbhd) {
      bool free[kN];
      legal_nbhds(free);
      for (int nb = 0; nb < kN; ++nb) mask[cp::kNbhdAction + nb] = free[nb] ? 1 : 0;
      mask[cp::kPass] = num_bids > 0 ? 1 : 0;
    } else if (decision == kValue) {
      const int values = legal_values(actor);
      for (int v = 1; v <= cp::kNumBuildings; ++v)
        if (values >> (v - 1) & 1) mask[cp::kValueAction + v - 1] = 1;
    }
  }

  // ===== transitions (rules.py) ================================================================
  // rules.apply_action
  void apply(int action, Random& /*chance*/) {
    if (decision == kValue) {
      bid(actor, chosen, action - cp::kValueAction + 1);
    } else if (action == cp::kPass) {
      passed |= 1 << actor;
      next_bidder();
    } else {
      chosen = action;
      decision = kValue;
    }
  }

  // rules._bid
  void bid(int seat, int nbhd, int value) {
    bid_owner[nbhd] = static_cast<int8_t>(seat);
    bid_value[nbhd] = static_cast<int8_t>(value);
    supply[seat] &= ~(1 << (value - 1));
    bids[num_bids++] = Bid{static_cast<int8_t>(seat), static_cast<int8_t>(nbhd), static_cast<int8_t>(value)};
    chosen = -1;
    decision = kNbhd;
    next_bidder();
  }

  // rules.can_outbid
  bool can_outbid(int seat) const {
    const Bid& top = bids[num_bids - 1];
    return values_above(supply[seat], top.value) != 0 && has_free_neighbour(top.nbhd);
  }

  // rules._next_bidder: the seat after the actor still in the call; forced passes on the way.
  void next_bidder() {
    const int top_seat = bids[num_bids - 1].seat;
    int seat = actor;
    for (int i = 0; i < n - 1; ++i) {
      seat = (seat + 1) % n;
      if (seat == top_seat || (passed >> seat & 1)) continue;
      if (can_outbid(seat)) {
        actor = seat;
        return;
      }
      passed |= 1 << seat;  // forced pass
    }
    resolve();
  }

  // rules._resolve: the top bidder builds, the other bids go home, the winner opens the next call.
  void resolve() {
    const Bid top = bids[num_bids - 1];
    for (int i = 0; i < num_bids - 1; ++i) {
      const Bid& other = bids[i];
      supply[other.seat] |= 1 << (other.value - 1);
      bid_owner[other.nbhd] = -1;
      bid_value[other.nbhd] = 0;
    }
    bid_owner[top.nbhd] = -1;
    bid_value[top.nbhd] = 0;
    owner[top.nbhd] = top.seat;
    built_value[top.nbhd] = top.value;
    built[top.seat] += 1;
    if (token[top.nbhd] != cp::kNoToken) {
      take_token(top.seat, token[top.nbhd]);
      token[top.nbhd] = cp::kNoToken;
    }
    num_bids = 0;
    passed = 0;
    calls += 1;
    if (built[top.seat] == cp::kNumBuildings) {
      decision = kGameOver;
      actor = -1;
      return;
    }
    opener = top.seat;
    actor = top.seat;
    decision = kNbhd;
  }

  // rules._take_token: the Subway card needs strictly more tokens; the Arch card always moves.
  void take_token(int seat, int kind) {
    tokens[seat][kind - 1] += 1;
    if (kind == cp::kSubway) {
      const int holder = subway_card;
      const int mine = tokens[seat][cp::kSubway - 1];
      if (holder < 0 || (holder != seat && mine > tokens[holder][cp::kSubway - 1])) subway_card = seat;
    } else if (kind == cp::kArch) {
      arch_card = seat;
    }
  }

  // ===== the match ============================================================================
  int current_player() const { return actor; }
  bool is_over() const { return decision == kGameOver; }
  bool is_truncated() const { return false; }
  const char* decision_name() const {
    return decision == kNbhd ? "NBHD" : decision == kValue ? "VALUE" : "GAME_OVER";
  }

  // ===== scoring (rules.py §6) =================================================================
  // rules.buildings_of: the seat's neighbourhoods in id order; returns how many (at most 13).
  int buildings_of(int seat, int* out) const {
    int count = 0;
    for (int nb = 0; nb < kN && count < cp::kNumBuildings; ++nb)
      if (owner[nb] == seat) out[count++] = nb;
    return count;
  }

  // rules.token_points
  int token_points(int seat) const {
    int points = 0;
    for (int kind = cp::kTrendy; kind <= cp::kArch; ++kind) points += tokens[seat][kind - 1] * cp::kTokenPoints[kind];
    if (subway_card == seat) points += cp::kSubwayCardPoints;
    if (arch_card == seat) points += cp::kArchCardPoints;
    return points;
  }

  // rules.family_points
  static int family_points(int card, const int* mine, int count) {
    int qualifying = 0;
    for (int i = 0; i < count; ++i) qualifying += cp::kFamilyQualifying[card][mine[i]] ? 1 : 0;
    return cp::kFamilyPointsPerBuilding * qualifying;
  }

  // rules.colour_points
  static int colour_points(int colour, const int* mine, int count) {
    int matching = 0;
    for (int i = 0; i < count; ++i) matching += cp::kColour[mine[i]] == colour ? 1 : 0;
    return cp::kNeighbourhoodPointsPerBuilding * matching;
  }

  // rules.candidate_sets, each set a mask over the indices of `mine` (at most 13 buildings).
  static int candidate_sets(int card, const int* mine, int count, uint16_t* sets) {
    int index_of[kN];
    for (int nb = 0; nb < kN; ++nb) index_of[nb] = -1;
    for (int i = 0; i < count; ++i) index_of[mine[i]] = i;
    int found = 0;
    if (card == cp::kExpertBridges) {
      for (const auto& bridge : cp::kBridges)
        if (index_of[bridge[0]] >= 0 && index_of[bridge[1]] >= 0)
          sets[found++] = static_cast<uint16_t>(1 << index_of[bridge[0]] | 1 << index_of[bridge[1]]);
    } else if (card == cp::kExpertChains) {  // connected triples: a member adjacent to both others
      for (int c = 0; c < count; ++c) {
        int around[cp::kMaxAdj];
        int k = 0;
        for (int j = 0; j < cp::kAdjCount[mine[c]]; ++j)
          if (index_of[cp::kAdj[mine[c]][j]] >= 0) around[k++] = index_of[cp::kAdj[mine[c]][j]];
        for (int a = 0; a < k; ++a)
          for (int b = a + 1; b < k; ++b)
            sets[found++] = static_cast<uint16_t>(1 << c | 1 << around[a] | 1 << around[b]);
      }
    } else if (card == cp::kExpertLakes) {
      for (int lake = 0; lake < cp::kNumLakes; ++lake) {
        int beside[cp::kMaxLake];
        int k = 0;
        for (int j = 0; j < cp::kLakeSize[lake]; ++j)
          if (index_of[cp::kLakes[lake][j]] >= 0) beside[k++] = index_of[cp::kLakes[lake][j]];
        for (int a = 0; a < k; ++a)
          for (int b = a + 1; b < k; ++b)
            for (int c = b + 1; c < k; ++c)
              sets[found++] = static_cast<uint16_t>(1 << beside[a] | 1 << beside[b] | 1 << beside[c]);
      }
    } else if (card == cp::kExpertStatues) {
      for (const auto& statue : cp::kStatues)
        if (index_of[statue[0]] >= 0 && index_of[statue[1]] >= 0 && index_of[statue[2]] >= 0)
          sets[found++] = static_cast<uint16_t>(1 << index_of[statue[0]] | 1 << index_of[statue[1]] |
                                                1 << index_of[statue[2]]);
    }
    return found;
  }

  // rules.max_disjoint_sets: the largest number of pairwise disjoint sets (exact, memoized).
  static int best_packing(int free, const uint16_t* sets, int count, int8_t* memo) {
    if (free == 0) return 0;
    if (memo[free] >= 0) return memo[free];
    const int low = free & -free;
    int result = best_packing(free & ~low, sets, count, memo);  // the lowest element serves no set
    for (int i = 0; i < count; ++i)
      if ((sets[i] & low) && (sets[i] & free) == sets[i])
        result = std::max(result, 1 + best_packing(free & ~sets[i], sets, count, memo));
    memo[free] = static_cast<int8_t>(result);
    return result;
  }

  // rules.area_points
  static int area_points(int card, const int* mine, int count) {
    int sets_scored = 0;
    if (card == cp::kExpertDistricts) {
      int counts[cp::kNumDistricts] = {};
      for (int i = 0; i < count; ++i) counts[cp::kDistrict[mine[i]]] += 1;
      for (int c : counts) sets_scored += c >= cp::kDistrictSetSize ? 1 : 0;
    } else {
      uint16_t sets[256];  // at most 13 centres x 15 pairs (chains), 6 lakes x 20 triples (lakes)
      const int found = candidate_sets(card, mine, count, sets);
      if (found > 0) {
        int8_t memo[1 << cp::kNumBuildings];
        std::fill_n(memo, 1 << count, static_cast<int8_t>(-1));
        sets_scored = best_packing((1 << count) - 1, sets, found, memo);
      }
    }
    return cp::kExpertAreaPoints[card] * sets_scored;
  }

  // rules.highest_building_winners: is `seat` among them? Descending height lists compare as the
  // counts of (tall, medium, small) compare, lexicographically.
  bool highest_building_winner(int district, int seat) const {
    std::array<std::array<int, 3>, kMaxPlayers> counts{};
    std::array<bool, kMaxPlayers> present{};
    for (int nb = 0; nb < kN; ++nb)
      if (owner[nb] >= 0 && cp::kDistrict[nb] == district) {
        present[owner[nb]] = true;
        counts[owner[nb]][2 - cp::kHeightClass[built_value[nb]]] += 1;
      }
    if (!present[seat]) return false;
    for (int other = 0; other < n; ++other)
      if (present[other] && counts[other] > counts[seat]) return false;
    return true;
  }

  // rules.score: the prestige the final scoring would count now.
  int score(int seat) const {
    int mine[cp::kNumBuildings];
    const int count = buildings_of(seat, mine);
    int points = token_points(seat);
    if (!expert) {
      if (family_card[seat] >= 0) points += family_points(family_card[seat], mine, count);
      return points;
    }
    points += colour_points(colour_card[seat], mine, count);
    points += area_points(area_card[seat], mine, count);
    for (int district = 0; district < cp::kNumDistricts; ++district)
      if (!is_removed(district) && highest_building_winner(district, seat)) points += cp::kHighestBuildingPoints;
    return points;
  }

  void scores(double* out) const {
    for (int seat = 0; seat < n; ++seat) out[seat] = static_cast<double>(score(seat));
  }

  // rules.standing_keys: prestige, then buildings built.
  void standings(std::vector<double>& out, int& width) const {
    width = 2;
    out.clear();
    for (int seat = 0; seat < n; ++seat) {
      out.push_back(static_cast<double>(score(seat)));
      out.push_back(static_cast<double>(built[seat]));
    }
  }

  // rules.winners: core.game.leaders over the standing keys.
  void winners(std::vector<int>& out) const {
    out.clear();
    std::array<std::array<int, 2>, kMaxPlayers> keys{};
    for (int seat = 0; seat < n; ++seat) keys[seat] = {score(seat), built[seat]};
    std::array<int, 2> best = keys[0];
    for (int seat = 1; seat < n; ++seat) best = std::max(best, keys[seat]);
    for (int seat = 0; seat < n; ++seat)
      if (keys[seat] == best) out.push_back(seat);
  }

  // ===== observation (view.observation) =======================================================
  void observation(int p, float* obs) const {
    std::memset(obs, 0, sizeof(float) * kObservationSize);
    // static block (view.static_block)
    for (int nb = 0; nb < kN; ++nb) {
      float* row = obs + cp::kStaticStart + nb * cp::kStaticWidth;
      row[cp::kStDistrict + cp::kDistrict[nb]] = 1.0F;
      row[cp::kStColour + cp::kColour[nb]] = 1.0F;
      const bool flags[7] = {cp::kLakeSide[nb], cp::kStatueSide[nb], cp::kBridgeEnd[nb], cp::kBorder[nb],
                             cp::kDeadEnd[nb],  !is_removed(cp::kDistrict[nb]), cp::kTokenOk[nb]};
      for (int f = 0; f < 7; ++f) row[cp::kStFlags + f] = flags[f] ? 1.0F : 0.0F;
    }
    // dynamic block: board_block with seat-relative owners, then the call
    float* dyn = obs + cp::kDynamicStart;
    for (int nb = 0; nb < kN; ++nb) {
      float* row = dyn + nb * cp::kDynamicWidth;
      row[cp::kDyToken + token[nb]] = 1.0F;
      if (owner[nb] >= 0) {
        const int value = built_value[nb];
        row[cp::kDyBuiltBy + relative(owner[nb], p)] = 1.0F;
        row[cp::kDyBuiltValue] = static_cast<float>(value / 13.0);
        row[cp::kDyHeight + cp::kHeightClass[value]] = 1.0F;
      }
    }
    for (int i = 0; i < num_bids; ++i) {
      float* row = dyn + bids[i].nbhd * cp::kDynamicWidth;
      row[cp::kDyBidBy + relative(bids[i].seat, p)] = 1.0F;
      row[cp::kDyBidValue] = static_cast<float>(bids[i].value / 13.0);
    }
    if (num_bids > 0) dyn[bids[num_bids - 1].nbhd * cp::kDynamicWidth + cp::kDyTopBid] = 1.0F;
    if (actor == p) {
      if (decision == kNbhd) {
        bool free[kN];
        legal_nbhds(free);
        for (int nb = 0; nb < kN; ++nb)
          if (free[nb]) dyn[nb * cp::kDynamicWidth + cp::kDyLegal] = 1.0F;
      } else if (decision == kValue) {
        dyn[chosen * cp::kDynamicWidth + cp::kDyChosen] = 1.0F;
      }
    }
    // players block, rows in clockwise order from p
    const int top_seat = num_bids > 0 ? bids[num_bids - 1].seat : -1;
    const int shown_opener = actor >= 0 ? opener : -1;
    for (int o = 0; o < n; ++o) {
      const int i = (p + o) % n;
      float* row = obs + cp::kPlayersStart + o * cp::kPlayersWidth;
      for (int v = 0; v < cp::kNumBuildings; ++v) row[cp::kPlValues + v] = (supply[i] >> v & 1) ? 1.0F : 0.0F;
      const double scalars[12] = {built[i] / 13.0,
                                  tokens[i][0] / 9.0,
                                  tokens[i][1] / 9.0,
                                  tokens[i][2] / 9.0,
                                  subway_card == i ? 1.0 : 0.0,
                                  arch_card == i ? 1.0 : 0.0,
                                  (passed >> i & 1) ? 1.0 : 0.0,
                                  top_seat == i ? 1.0 : 0.0,
                                  shown_opener == i ? 1.0 : 0.0,
                                  actor == i ? 1.0 : 0.0,
                                  token_points(i) / 50.0,
                                  1.0};
      for (int k = 0; k < 12; ++k) row[cp::kPlScalars + k] = static_cast<float>(scalars[k]);
    }
    // private and global vectors
    if (family_card[p] >= 0) obs[cp::kFamilyCard + family_card[p]] = 1.0F;
    if (colour_card[p] >= 0) {
      obs[cp::kColourCard + colour_card[p]] = 1.0F;
      obs[cp::kAreaCard + area_card[p]] = 1.0F;
    }
    if (decision >= 0) obs[cp::kGlDecision + decision] = 1.0F;
    if (num_bids > 0) {
      obs[cp::kGlTopValue] = static_cast<float>(bids[num_bids - 1].value / 13.0);
      obs[cp::kGlBids] = static_cast<float>(num_bids / 13.0);
    }
    obs[cp::kGlVersion + (expert ? 1 : 0)] = 1.0F;
    obs[cp::kGlPlayerCount + n - 2] = 1.0F;
    for (int i = 0; i < num_removed; ++i) obs[cp::kGlRemoved + removed[i]] = 1.0F;
    obs[cp::kGlCalls] = static_cast<float>(calls / static_cast<double>(cp::kMaxCalls));
  }

  int relative(int seat, int p) const { return ((seat - p) % n + n) % n; }

  // ===== the heuristic agent (agents/metropolys_heuristic.py), defined in heuristic.hpp ==========
  int heuristic(int player, const int* legal, int count, Random& rng) const;

  // ===== determinization (view.determinize) ===================================================
  // view._redeal: the other seats' cards drawn from the deck minus p's own card.
  void redeal(std::array<int, kMaxPlayers>& cards, const int* deck, int deck_size, int p, Random& rng) const {
    int pool[5];
    int size = 0;
    for (int i = 0; i < deck_size; ++i)
      if (deck[i] != cards[p]) pool[size++] = deck[i];
    const std::vector<int64_t> order = rng.permutation(size);
    int drawn[5];
    for (int i = 0; i < size; ++i) drawn[i] = pool[order[static_cast<size_t>(i)]];
    for (int seat = 0; seat < n; ++seat)
      if (seat != p) cards[seat] = drawn[--size];
  }

  void resample_hidden(int p, Random& rng) {
    if (decision == kGameOver) return;  // everything was revealed
    if (!expert) {
      int deck[4];
      const int size = family_deck(deck);
      redeal(family_card, deck, size, p, rng);
    } else {
      const int deck[5] = {0, 1, 2, 3, 4};
      redeal(colour_card, deck, 5, p, rng);
      redeal(area_card, deck, 5, p, rng);
    }
  }

  // ===== JSON (Metropolys._state_to_dict / _state_from_dict) ==================================
  void write_json(json::Writer& out) const {
    auto seats = [&](const char* key, const std::array<int, kMaxPlayers>& values) {
      out.key(key).begin_array();
      for (int seat = 0; seat < n; ++seat) out.value(values[seat]);
      out.end_array();
    };
    out.begin_object();
    out.key("n").value(n);
    out.key("version").value(expert ? "expert" : "family");
    out.key("removed").begin_array();
    for (int i = 0; i < num_removed; ++i) out.value(static_cast<int>(removed[i]));
    out.end_array();
    out.key("in_play").begin_array();
    for (bool b : in_play) out.value(b);
    out.end_array();
    out.key("token").array(token);
    out.key("owner").array(owner);
    out.key("built_value").array(built_value);
    out.key("bid_owner").array(bid_owner);
    out.key("bid_value").array(bid_value);
    seats("supply", supply);
    seats("built", built);
    out.key("tokens").begin_array();
    for (int seat = 0; seat < n; ++seat) out.array(tokens[seat]);
    out.end_array();
    out.key("subway_card").value(subway_card);
    out.key("arch_card").value(arch_card);
    seats("family_card", family_card);
    seats("colour_card", colour_card);
    seats("area_card", area_card);
    out.key("opener").value(opener);
    out.key("bids").begin_array();
    for (int i = 0; i < num_bids; ++i) {
      out.begin_array();
      out.value(static_cast<int>(bids[i].seat)).value(static_cast<int>(bids[i].nbhd));
      out.value(static_cast<int>(bids[i].value));
      out.end_array();
    }
    out.end_array();
    out.key("passed").value(passed);
    out.key("decision").value(decision);
    out.key("actor").value(actor);
    out.key("chosen").value(chosen);
    out.key("calls").value(calls);
    out.end_object();
  }

  [[noreturn]] static void invalid(const std::string& field, const std::string& why) {
    throw std::invalid_argument("state: " + field + ": " + why);
  }

  // A list of exactly `size` ints in [low, high].
  template <class T, size_t N>
  static void read_ints(const json::Value& state, const char* key, int size, int64_t low, int64_t high,
                        std::array<T, N>& out) {
    const auto& items = state.at(key).as_array(key, static_cast<size_t>(size));
    if (items.size() != static_cast<size_t>(size)) invalid(key, "must hold " + std::to_string(size) + " values");
    for (int i = 0; i < size; ++i)
      out[static_cast<size_t>(i)] = static_cast<T>(items[static_cast<size_t>(i)].as_int(key, low, high));
  }

  // Reads `_state_to_dict` and checks it as validation.validate_state does.
  void read_json(int num_players, const json::Value& options, const json::Value& state) {
    *this = Game();
    // the keys of _state_to_dict, each once (no other key: the Python engine's State refuses them too)
    static constexpr const char* kKeys[] = {"n",         "version",     "removed",     "in_play",     "token",
                                            "owner",     "built_value", "bid_owner",   "bid_value",   "supply",
                                            "built",     "tokens",      "subway_card", "arch_card",   "family_card",
                                            "colour_card", "area_card", "opener",      "bids",        "passed",
                                            "decision",  "actor",       "chosen",      "calls"};
    if (state.kind != json::Value::Kind::kObject) invalid("state", "must be an object");
    for (const auto& member : state.members)
      if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* key) { return member.first == key; }) ==
          std::end(kKeys))
        invalid(member.first, "is not a field of the state");
    for (size_t i = 0; i < state.members.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (state.members[i].first == state.members[j].first) invalid(state.members[i].first, "given twice");
    n = static_cast<int>(state.at("n").as_int("n", kMinPlayers, kMaxPlayers));
    if (n != num_players) invalid("n", "disagrees with num_players");
    const std::string& version = state.at("version").as_string("version");
    if (version != "family" && version != "expert") invalid("version", "must be family or expert");
    expert = version == "expert";
    if (expert != option_expert(options)) invalid("version", "disagrees with the option");
    options.at("layout").as_string("layout");
    options.at("start_player").as_int("start_player", 0, n - 1);
    std::array<int8_t, 2> wanted{};
    int wanted_count = 0;
    const bool given = option_removed(n, options, wanted_count, wanted);
    read_board(state, given, wanted_count, wanted);
    read_buildings(state);
    read_tokens(state);
    read_cards(state);
    read_call(state);
  }

  // validation._check_board
  void read_board(const json::Value& state, bool given, int wanted_count, const std::array<int8_t, 2>& wanted) {
    const int count = n == 2 ? 2 : n == 3 ? 1 : 0;
    read_ints(state, "removed", count, 1, 4, removed);
    num_removed = count;
    if (count == 2) {
      if (removed[0] >= removed[1]) invalid("removed", "not a sorted set of districts");
      bool adjacent = false;
      for (const auto& pair : cp::kAdjacentPairs)
        if (std::min(pair[0], pair[1]) == removed[0] && std::max(pair[0], pair[1]) == removed[1]) adjacent = true;
      if (!adjacent) invalid("removed", "not an adjacent pair");
    }
    if (given && (wanted_count != count || wanted != removed)) invalid("removed", "disagrees with the option");
    const auto& flags = state.at("in_play").as_array("in_play", kN);
    if (flags.size() != static_cast<size_t>(kN)) invalid("in_play", "must hold 55 values");
    for (int nb = 0; nb < kN; ++nb) {
      in_play[nb] = flags[static_cast<size_t>(nb)].as_bool("in_play");
      if (in_play[nb] != !is_removed(cp::kDistrict[nb])) invalid("in_play", "disagrees with the removed districts");
    }
    read_ints(state, "token", kN, cp::kNoToken, cp::kArch, token);
    for (int nb = 0; nb < kN; ++nb)
      if (token[nb] != cp::kNoToken && !(in_play[nb] && cp::kTokenOk[nb]))
        invalid("token[" + std::to_string(nb) + "]", "a token where none can lie");
  }

  // validation._check_buildings
  void read_buildings(const json::Value& state) {
    read_ints(state, "owner", kN, -1, n - 1, owner);
    read_ints(state, "built_value", kN, 0, cp::kNumBuildings, built_value);
    read_ints(state, "bid_owner", kN, -1, n - 1, bid_owner);
    read_ints(state, "bid_value", kN, 0, cp::kNumBuildings, bid_value);
    read_ints(state, "supply", n, 0, kFullSupply, supply);
    read_ints(state, "built", n, 0, cp::kNumBuildings, built);
    const auto& items = state.at("bids").as_array("bids", kMaxBids);
    num_bids = static_cast<int>(items.size());
    for (int i = 0; i < num_bids; ++i) {
      const auto& bid = items[static_cast<size_t>(i)].as_array("bids", 3);
      if (bid.size() != 3) invalid("bids[" + std::to_string(i) + "]", "is not (seat, nbhd, value)");
      bids[i].seat = static_cast<int8_t>(bid[0].as_int("bids", 0, n - 1));
      bids[i].nbhd = static_cast<int8_t>(bid[1].as_int("bids", 0, kN - 1));
      bids[i].value = static_cast<int8_t>(bid[2].as_int("bids", 1, cp::kNumBuildings));
    }
    for (int nb = 0; nb < kN; ++nb) {
      if (owner[nb] >= 0) {
        if (!(in_play[nb] && token[nb] == cp::kNoToken && bid_owner[nb] < 0 && built_value[nb] >= 1))
          invalid("owner[" + std::to_string(nb) + "]", "a building where none can stand");
      } else if (built_value[nb] != 0) {
        invalid("built_value[" + std::to_string(nb) + "]", "a value without a building");
      }
      if (bid_owner[nb] < 0 && bid_value[nb] != 0)
        invalid("bid_value[" + std::to_string(nb) + "]", "a value without a bid");
    }
    // each seat's 13 values: in its supply, built, or bid, exactly once
    for (int seat = 0; seat < n; ++seat) {
      int stands = 0;
      int seen = 0;
      bool twice = false;
      auto place = [&](int value) {
        if (seen >> (value - 1) & 1) twice = true;
        seen |= 1 << (value - 1);
      };
      for (int nb = 0; nb < kN; ++nb)
        if (owner[nb] == seat) {
          ++stands;
          place(built_value[nb]);
        }
      if (built[seat] != stands) invalid("built[" + std::to_string(seat) + "]", "disagrees with the buildings");
      for (int i = 0; i < num_bids; ++i)
        if (bids[i].seat == seat) place(bids[i].value);
      for (int v = 1; v <= cp::kNumBuildings; ++v)
        if (supply[seat] >> (v - 1) & 1) place(v);
      if (twice || seen != kFullSupply)
        invalid("supply[" + std::to_string(seat) + "]", "buildings not each in one place");
    }
  }

  // validation._check_tokens
  void read_tokens(const json::Value& state) {
    const auto& rows = state.at("tokens").as_array("tokens", static_cast<size_t>(n));
    if (rows.size() != static_cast<size_t>(n)) invalid("tokens", "one row per seat");
    for (int seat = 0; seat < n; ++seat) {
      const auto& row = rows[static_cast<size_t>(seat)].as_array("tokens", 3);
      if (row.size() != 3) invalid("tokens", "three counts per seat");
      for (int k = 0; k < 3; ++k)
        tokens[seat][k] = static_cast<int>(row[static_cast<size_t>(k)].as_int("tokens", 0, 1000));
    }
    for (const auto& kind_count : cp::kTokensPerCount[static_cast<size_t>(n - 2)]) {
      const int kind = kind_count[0];
      int total = 0;
      for (int nb = 0; nb < kN; ++nb) total += token[nb] == kind ? 1 : 0;
      for (int seat = 0; seat < n; ++seat) total += tokens[seat][kind - 1];
      if (total != kind_count[1]) invalid("tokens", "the counts of a kind disagree with the player count");
    }
    int most_subway = 0;
    int most_arch = 0;
    for (int seat = 0; seat < n; ++seat) {
      most_subway = std::max(most_subway, tokens[seat][cp::kSubway - 1]);
      most_arch = std::max(most_arch, tokens[seat][cp::kArch - 1]);
    }
    subway_card = static_cast<int>(state.at("subway_card").as_int("subway_card", -1, n - 1));
    if (subway_card < 0 ? most_subway != 0
                        : !(tokens[subway_card][cp::kSubway - 1] == most_subway && most_subway >= 1))
      invalid("subway_card", "disagrees with the subway tokens taken");
    arch_card = static_cast<int>(state.at("arch_card").as_int("arch_card", -1, n - 1));
    if ((arch_card >= 0) != (most_arch >= 1) || (arch_card >= 0 && tokens[arch_card][cp::kArch - 1] < 1))
      invalid("arch_card", "disagrees with the archaeological tokens taken");
  }

  // validation._check_cards
  void read_cards(const json::Value& state) {
    read_ints(state, "family_card", n, expert ? -1 : 0, expert ? -1 : 3, family_card);
    read_ints(state, "colour_card", n, expert ? 0 : -1, expert ? 4 : -1, colour_card);
    read_ints(state, "area_card", n, expert ? 0 : -1, expert ? 4 : -1, area_card);
    auto distinct = [&](const char* key, const std::array<int, kMaxPlayers>& cards) {
      for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b)
          if (cards[a] == cards[b]) invalid(key, "the same card twice");
    };
    if (!expert) {
      distinct("family_card", family_card);
      if (n == 2)
        for (int seat = 0; seat < n; ++seat)
          if (family_card[seat] == cp::kFamilyBorders) invalid("family_card", "the borders card with 2 players");
    } else {
      distinct("colour_card", colour_card);
      distinct("area_card", area_card);
    }
  }

  // validation._check_call
  void read_call(const json::Value& state) {
    opener = static_cast<int>(state.at("opener").as_int("opener", 0, n - 1));
    passed = static_cast<int>(state.at("passed").as_int("passed", 0, (1 << n) - 1));
    calls = static_cast<int>(state.at("calls").as_int("calls", 0, 1000));
    chosen = static_cast<int>(state.at("chosen").as_int("chosen", -1, kN - 1));
    decision = static_cast<int>(state.at("decision").as_int("decision", kGameOver, kValue));
    int total = 0;
    int most = 0;
    for (int seat = 0; seat < n; ++seat) {
      total += built[seat];
      most = std::max(most, built[seat]);
    }
    if (calls != total) invalid("calls", "disagrees with the buildings");
    int on_board = 0;
    for (int nb = 0; nb < kN; ++nb) on_board += bid_owner[nb] >= 0 ? 1 : 0;
    if (on_board != num_bids) invalid("bids", "disagree with the bids on the board");
    for (int i = 0; i < num_bids; ++i) {
      const Bid& b = bids[i];
      if (!(bid_owner[b.nbhd] == b.seat && bid_value[b.nbhd] == b.value && in_play[b.nbhd]))
        invalid("bids[" + std::to_string(i) + "]", "not on the board");
      if (i > 0) {
        const Bid& before = bids[i - 1];
        bool adjacent = false;
        for (int j = 0; j < cp::kAdjCount[before.nbhd]; ++j) adjacent = adjacent || cp::kAdj[before.nbhd][j] == b.nbhd;
        if (!adjacent || b.value <= before.value)
          invalid("bids[" + std::to_string(i) + "]", "not adjacent to and higher than the bid before");
      }
    }
    if (decision == kGameOver) {
      actor = static_cast<int>(state.at("actor").as_int("actor", -1, -1));
      if (most != cp::kNumBuildings || num_bids != 0) invalid("built", "the game ended before a 13th building");
      return;
    }
    actor = static_cast<int>(state.at("actor").as_int("actor", 0, n - 1));
    if (most >= cp::kNumBuildings) invalid("built", "a 13th building stands but the game goes on");
    if (passed >> actor & 1) invalid("actor", "passed in this call");
    if (num_bids == 0) {
      if (actor != opener || passed != 0) invalid("actor", "does not open the call");
    } else if (actor == bids[num_bids - 1].seat) {
      invalid("actor", "the top bidder bids against itself");
    }
    if (decision == kValue) {
      if (chosen < 0 || !is_free(chosen)) invalid("chosen", "not a free neighbourhood");
      if (num_bids > 0) {
        const int top = bids[num_bids - 1].nbhd;
        bool adjacent = false;
        for (int j = 0; j < cp::kAdjCount[top]; ++j) adjacent = adjacent || cp::kAdj[top][j] == chosen;
        if (!adjacent) invalid("chosen", "not next to the top bid");
      }
    } else if (chosen != -1) {
      invalid("chosen", "outside the VALUE decision");
    }
    uint8_t mask[kNumActions];
    legal_actions(mask);
    bool any = false;
    for (uint8_t legal : mask) any = any || legal != 0;
    if (!any) invalid("decision", "the pending decision has no legal action");
  }
};

}  // namespace city_envs::native::metropolys

#include "heuristic.hpp"  // Game::heuristic
