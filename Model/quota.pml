/*
 * PayPulse Gmail Connect: one user's request allowance (DynamoDBRequestQuota), model-checked.
 *
 * Two posts of one user race for an allowance of LIMIT uses. A take reads the item
 * (GetItem, consistent), decides (QuotaRule.decide), and writes the item with its own use
 * as a compare-and-swap on `version` (PutItem); a swap lost to the other post reads again.
 * A write may land and its answer be lost: the take then tries again, and the use it finds
 * carrying its own post's id is recognised as its own, so it counts nothing new.
 *
 * Property: a post is refused only when LIMIT uses of other posts are counted.
 * Planted defect D6: uses carry no post id, so a retry of a landed write counts it twice.
 * docs/model.md maps it to the code.
 */
#define LIMIT 2
#define NPOST 2
#define TRIES 4          /* DynamoDBRequestQuota.swapAttempts */

byte ver;                /* the item's version; 0: no item */
byte uses;               /* the uses counted */
bit  counted[NPOST + 1]; /* a use carrying post i's id is in the item */
bit  lostonce;           /* at most one lost answer per run */

proctype Post(byte id) {
  byte v; byte u; bit mine; byte tries; bit lost; bit admitted; bit refused;
  do
  :: tries < TRIES ->
     atomic {
       v = ver; u = uses;
#ifdef D6
       mine = 0;
#else
       mine = counted[id];
#endif
       printf("@ post %d: GetItem: version %d, %d uses, one of them ours=%d\n", id, v, u, mine)
     }
     if
     :: mine -> printf("@ post %d: our own use landed before: admitted, nothing counted again\n", id); admitted = 1; break
     :: !mine && u >= LIMIT -> refused = 1; break
     :: else
     fi;
     atomic {
       if
       :: ver == v ->
          ver++; uses++; counted[id] = 1;
          printf("@ post %d: PutItem from version %d landed: %d uses\n", id, v, uses);
          if
          :: !lostonce -> lostonce = 1; lost = 1; printf("@ post %d: the answer is lost; the take tries again\n", id)
          :: true -> lost = 0
          fi
       :: else -> lost = 1; printf("@ post %d: PutItem from version %d lost the swap\n", id, v)
       fi
     }
     if
     :: lost -> tries++
     :: else -> admitted = 1; break
     fi
  :: else -> refused = 1; break
  od;
  atomic {
    if
    :: refused ->
       printf("@ post %d: refused, 429\n", id);
       /* refused only when LIMIT uses of other posts are counted (never, for NPOST <= LIMIT),
          or when one user's own flood kept winning the swaps */
       assert(NPOST - 1 >= LIMIT || tries >= TRIES)
    :: else -> printf("@ post %d: admitted, 201\n", id)
    fi
  }
}

init {
  atomic { run Post(1); run Post(2) }
}
