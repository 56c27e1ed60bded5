/*
 * PayPulse Gmail Connect: one user's grant, model-checked (issue 55).
 *
 * docs/model.md maps every process and step below to the Swift function it stands for,
 * states the bounds and the scenarios, and says what is left out and why.
 *
 * The store is Secrets Manager's, the harder one: the value and its listing (tags) are
 * written by separate calls, a listing may lag, and a delete cannot be conditioned (delete,
 * describe, restore a newer version). Each call to a peer (the store, Google, the bus, the
 * word's record) is one atomic step; processes interleave between calls, never inside one.
 * Faults are nondeterministic choices made inside the step they hit, at most MAXF per run.
 * Every step prints a line starting "@ " so that `spin -t` replays read as a story.
 *
 * Model/check.sh (`make model`) verifies every scenario exhaustively, then switches on each
 * planted defect and prints the counterexample Spin finds for it.
 */

/* ---------------- bounds and scenarios (docs/model.md, "Bounds") ---------------- */
#ifndef SCENARIO
#define SCENARIO 1
#endif
/* Each scenario starts the workers of one race, on a connected grant unless it says
   otherwise; Google issues one event of any kind (G_KINDS: 1 tokens-revoked, 2
   account-disabled, 4 account-enabled, 8 account-purged) unless it is SILENT. */
#if SCENARIO == 1   /* connect-event: a first connect while Google's event is delivered */
#define FIRST_CONNECT 1
#elif SCENARIO == 2 /* disconnect-reconnect: a disconnect beside a new sign-in to A or B */
#define P_STORE2 1
#define P_DISC 1
#define SILENT 1
#elif SCENARIO == 3 /* disconnect-event: a disconnect while Google's event is delivered */
#define P_DISC 1
#elif SCENARIO == 4 /* refresh-event: the refresh run while Google's event is delivered */
#define P_REFRESH 1
#elif SCENARIO == 5 /* fresh-event: fresh-token while Google's event is delivered */
#define P_FRESH 1
#elif SCENARIO == 6 /* connect-refresh: a first connect beside the refresh run */
#define FIRST_CONNECT 1
#define P_REFRESH 1
#define SILENT 1
#elif SCENARIO == 7 /* events-in-any-order: two events delivered in either order, and again */
#define NEV 2
#define NRECV 2
#elif SCENARIO == 8 /* reconnect-event: a new sign-in to A or B while Google's event is delivered */
#define P_STORE2 1
#elif SCENARIO == 9
/* disconnect-reconnect-revoke: a disconnect, a reconnect to A and Google's revocation at
   once, without faults, the revocation delivered as it is issued (with faults, a switch,
   other kinds or a delayed delivery, the run is past this check's time: docs/model.md) */
#define P_STORE2 1
#define P_DISC 1
#define G_KINDS 1
#define MAXF 0
#define ISSUE_AT_DELIVERY 1
#define NO_SWITCH 1
#elif SCENARIO == 10 /* refresh-disconnect */
#define P_REFRESH 1
#define P_DISC 1
#define SILENT 1
#elif SCENARIO == 11 /* fresh-reconnect: fresh-token beside a new sign-in to A or B */
#define P_FRESH 1
#define P_STORE2 1
#define SILENT 1
#elif SCENARIO == 12 /* refresh-fresh: both renewing */
#define P_REFRESH 1
#define P_FRESH 1
#define SILENT 1
#elif SCENARIO == 13 /* fresh-disconnect */
#define P_FRESH 1
#define P_DISC 1
#define SILENT 1
#endif
#ifdef FIRST_CONNECT
#define P_STORE1 1
#define INIT_CONNECTED 0
#endif
#ifdef SILENT
#define G_KINDS 0
#define NRECV 0
#endif
#ifndef P_STORE1
#define P_STORE1 0
#endif
#ifndef P_STORE2
#define P_STORE2 0
#endif
#ifndef P_REFRESH
#define P_REFRESH 0
#endif
#ifndef P_FRESH
#define P_FRESH 0
#endif
#ifndef P_DISC
#define P_DISC 0
#endif
#ifndef INIT_CONNECTED
#define INIT_CONNECTED 1
#endif
#ifndef ISSUE_AT_DELIVERY
#define ISSUE_AT_DELIVERY 0
#endif
#ifndef NO_SWITCH
#define NO_SWITCH 0
#endif
#ifndef G_KINDS
#define G_KINDS 15
#endif
#ifndef NEV
#define NEV 1
#endif
#ifndef NRECV
#define NRECV 1
#endif
#ifndef MAXF
#define MAXF 1          /* faults per run */
#endif
#define NA 2            /* Google accounts: A = 1 (Google's events name it), B = 2 (a switch) */
#define NOUT 3          /* pending lifecycle events an outbox holds (asserted never exceeded) */
#define MAXLEV 9        /* lifecycle events recorded per run (asserted) */
#define NCAUSE 10       /* change identities: Google's events 1..NEV, then one per invocation */
#define STORE_TRIES 2   /* RetryPolicy.lostRace, bounded */
#define SETTLE_TRIES 2  /* TokenVault.rereadsAfterLostSwap, bounded */
#define PUB_TRIES 2     /* publishPending's re-reads, bounded */
#define A 1
#define B 2

/* fault kinds that may be chosen (each 0 or 1) */
#ifndef F_LOST
#define F_LOST 1        /* a write's answer lost after it landed */
#endif
#ifndef F_TAG
#define F_TAG 1         /* a tag write refused */
#endif
#ifndef F_CRASH
#define F_CRASH 1       /* a crash between two steps */
#endif
#ifndef F_LAG
#define F_LAG 1         /* a listing by sub that does not show the grant yet */
#endif
#ifndef F_BUS
#define F_BUS 1         /* the bus refuses a put, or takes it and the answer is lost */
#endif
#ifndef F_GDOWN
#define F_GDOWN 1       /* Google out of reach: a connect stores unverified, a refresh is transient */
#endif

/*
 * Planted defects: each -DDn switches on one past or plausible mistake, and Model/check.sh
 * expects Spin to find a counterexample for it (D6 lives in Model/quota.pml).
 *   D1  a proof dated by the write's own clock instead of Google's answer time
 *   D2  no record of Google's word: each event judged alone, against the grants listed
 *   D3  a purge that, after a lost swap, marks whatever value it reads without judging it
 *   D4  tags without the version stamp: a listing cannot tell stale tags from current ones
 *   D5  a disconnect's mark whose answer was lost, decided again as a new change
 *   D6  (quota.pml) a retried allowance write that carries no post id, counted twice
 *   D7  the receiver lists grants before it records the word
 *   D8  store-tokens reads the word before its write instead of after it
 *   D9  a conditional delete that never restores a newer version it deleted
 *   D10 a refresh run's sweep that never restores a grant a delete took too soon
 *   D11 a restored grant not judged by Google's word
 *   D12 an event's sequence taken from the clock alone (the LTL property sequence_increases)
 */
#ifdef D1
#define D_VAT_WRITE_TIME 1
#endif
#ifdef D2
#define D_NO_WORD 1
#endif
#ifdef D3
#define D_PURGE_NO_REJUDGE 1
#endif
#ifdef D4
#define D_TAGS_NO_STAMP 1
#endif
#ifdef D5
#define D_LOST_MARK_TWICE 1
#endif
#ifdef D7
#define D_LIST_BEFORE_WORD 1
#endif
#ifdef D8
#define D_WORD_BEFORE_WRITE 1
#endif
#ifdef D9
#define D_DELETE_NO_RESTORE 1
#endif
#ifdef D10
#define D_SWEEP_NO_RESTORE 1
#endif
#ifdef D11
#define D_RESTORE_NO_WORD 1
#endif

/* ---------------- names ---------------- */
mtype = { ACTIVE, REVOKED, DISABLED };                                      /* GmailTokenSet.Status */
mtype = { not_connected, connected, revoked, disabled, disconnected };     /* LifecycleEvent.Status */
mtype = { Connected, Reconnected, AccountSwitched, Revoked, Disabled, Enabled, Disconnected, Purged }; /* LifecycleEvent.Kind */
mtype = { tokens_revoked, account_disabled, account_enabled, account_purged }; /* SecurityEventType */
mtype = { v_none, v_revoke, v_disable, v_enable, v_purge };                 /* the verdict on one grant */
mtype = { landed, conflict, gone };                                        /* a compare-and-swap's answer */
mtype = { store_tokens, security_events, disconnect, fresh_token, refresh_run }; /* who prints a step */

/* The stored value: GmailTokenSet (format 2) with its outbox, LifecycleOutbox */
typedef Grant {
  bit  ex;        /* the secret exists */
  bit  del;       /* scheduled for deletion (restorable; the value is kept) */
  bit  vfd;       /* verified */
  bit  dla;       /* lifecycle.deleteAfterPublishDays set: a disconnect's or a purge's mark */
  byte ver;       /* the version (AWSCURRENT); every write makes a new one */
  mtype st;       /* status */
  byte vat;       /* verified_at as stored */
  byte acct;      /* google_sub as stored; 0 = not known (stored unverified) */
  byte tacct;     /* ghost: the account the refresh token belongs to */
  byte tok;       /* the refresh token, named by the tick Google issued it at */
  byte evat;      /* the iat of the security event that set st (0: none) */
  byte aev;       /* accountEventAt: only the defect D2 keeps it */
  byte P;         /* ghost: the tick Google really answered the proof at (0: never) */
  byte pend[NOUT];/* lifecycle.pending: event ids, oldest first */
  byte lseq;      /* lifecycle.lastSequence */
}

Grant g;                      /* the one user's grant */
byte nver;                    /* versions given out */
/* the listing: tags (TokenSetTags), written apart from the value, stamped with the version they describe */
bit  t_ex; bit t_vfd; bit t_pend; bit t_dla; byte t_ver; byte t_acct; mtype t_st;

/* Google's word per account (GoogleAccountWord): the latest iat of each kind */
byte w_rev[NA+1]; byte w_dis[NA+1]; byte w_ena[NA+1]; byte w_pur[NA+1];
/* ghost: Google itself (faithful), and the events it issued */
byte gg_rev[NA+1]; byte gg_dis[NA+1]; byte gg_ena[NA+1]; byte gg_pur[NA+1];
byte ge_n; mtype ge_kind[NEV]; byte ge_iat[NEV]; bit ge_acked[NEV];
byte led[NEV];                /* the security event ledger: 0 none, 1 claimed (a lease), 2 recorded */

/* ghost: lifecycle events recorded (ids 1..nev) and published */
byte nev; bit ev_pub[MAXLEV+1];
bit  cause_done[NCAUSE];
mtype chain_last = not_connected;   /* the state the last recorded event left the connection in */
byte seq_last; byte seq_before;

byte clk;                     /* one clock, integer ticks: Google's answers, its events, sign-ins */
byte nfaults; bit faults_on = 1; bit exhausted;
byte done;

/* scratch, valid inside one step only */
hidden byte h_i; hidden byte h_id; hidden mtype h_cb; hidden byte h_acct; hidden byte h_P; hidden byte h_rm;

#ifdef D_TAGS_NO_STAMP
#define STAMPED 0
#else
#define STAMPED 1
#endif
#define LIVE(x)      (x.ex && !x.del)
#define HASWORK(x)   (x.pend[0] != 0 || x.dla)
#define EVENTS(x)    (x.pend[0] != 0)
#define CONN(x)      (!x.ex -> not_connected : (x.dla -> disconnected : (x.st == ACTIVE -> connected : (x.st == REVOKED -> revoked : disabled))))
#define ALIVE(a, t)  (gg_pur[a] == 0 && gg_rev[a] < t && gg_dis[a] <= gg_ena[a])
#define MAX(x, y)    (x > y -> x : y)
#define CANF         (faults_on && nfaults < MAXF)
/* a deleted secret the listing shows as a finished disconnect: its mark, tags describing that version */
#define LEGIT_DELETED ((!STAMPED || t_ver == g.ver) && t_st == REVOKED && t_dla && !t_pend)
#define CAUSE_EV(e)  (e + 1)
#define C_STORE1     (NEV + 1)
#define C_STORE2     (NEV + 2)
#define C_REFRESH    (NEV + 3)
#define C_FRESH      (NEV + 4)
#define C_DISC       (NEV + 5)
#define C_FINAL      (NEV + 6)

inline copyG(d, s) {
  d.ex = s.ex; d.del = s.del; d.vfd = s.vfd; d.dla = s.dla; d.ver = s.ver; d.st = s.st; d.vat = s.vat;
  d.acct = s.acct; d.tacct = s.tacct; d.tok = s.tok; d.evat = s.evat; d.aev = s.aev; d.P = s.P;
  for (h_i : 0 .. NOUT - 1) { d.pend[h_i] = s.pend[h_i] }
  d.lseq = s.lseq
}
inline clearG(d) {
  d.ex = 0; d.del = 0; d.vfd = 0; d.dla = 0; d.ver = 0; d.st = 0; d.vat = 0; d.acct = 0; d.tacct = 0;
  d.tok = 0; d.evat = 0; d.aev = 0; d.P = 0;
  for (h_i : 0 .. NOUT - 1) { d.pend[h_i] = 0 }
  d.lseq = 0
}

/* a fault of kind `kind_on` may happen here: both branches are explored while the budget lasts */
inline fault(flag, kind_on) {
  atomic {
    flag = 0;
    if
    :: (kind_on && CANF) -> nfaults++; flag = 1
    :: true
    fi
  }
}

/* Every local a worker's steps use; each proctype declares them once (and clears them at its end). */
#define WORKER_LOCALS \
  Grant r; Grant w; Grant y; \
  mtype res; mtype wk; mtype vk; byte vc; bit f; bit settled; bit stfail; bit shown; bit purging; bit again; \
  byte tries; byte sttries; byte ptries; byte acc0; byte acc1; byte acc2; bit pok; bit wantdel; bit rm; bit rst; \
  byte wr; byte wd; byte we; byte wp; byte wa; byte R; bit gok; bit stampnow; byte ja; byte jiat; byte expv; byte dexp; \
  byte tg_ver; mtype tg_st; bit tg_vfd; bit tg_pend; bit tg_dla; byte tg_acct

#define RESET_LOCALS \
    clearG(r); clearG(w); clearG(y); res = 0; wk = 0; vk = 0; vc = 0; f = 0; settled = 0; stfail = 0; shown = 0; \
    purging = 0; again = 0; tries = 0; sttries = 0; ptries = 0; acc0 = 0; acc1 = 0; acc2 = 0; pok = 0; wantdel = 0; rm = 0; rst = 0; \
    wr = 0; wd = 0; we = 0; wp = 0; wa = 0; R = 0; gok = 0; stampnow = 0; ja = 0; jiat = 0; expv = 0; dexp = 0; \
    tg_ver = 0; tg_st = 0; tg_vfd = 0; tg_pend = 0; tg_dla = 0; tg_acct = 0

/* ---------------- the store's calls ---------------- */

/* GetSecretValue: the value, strongly consistent (a deleted secret reads as deleted) */
inline read_grant(who) {
  atomic {
    copyG(r, g);
    if
    :: !r.ex -> printf("@ %e: read: no grant\n", who)
    :: r.ex && r.del -> printf("@ %e: read: v%d scheduled for deletion\n", who, r.ver)
    :: else -> printf("@ %e: read v%d %e verified=%d proof t%d sub %d pending e%d,e%d delete-after-publish=%d\n",
                      who, r.ver, r.st, r.vfd, r.vat, r.acct, r.pend[0], r.pend[1], r.dla)
    fi
  }
}

/*
 * The compare-and-swap from version expv (PutSecretValue with a ClientRequestToken derived
 * from it; CreateSecret, tags included, when expv == 0), carrying the change's lifecycle
 * event `kind` in the same write (LifecycleOutbox; event_id and sequence fixed here). The
 * ghost checks of "each change, its event; none for a change that did not happen; one
 * event_id per change; a purge judged what it marks" sit here, where a change lands.
 */
inline cas(x, kind, cause, result, who) {
  d_step {
    if
    :: (expv == 0 && !g.ex) || (expv != 0 && LIVE(g) && g.ver == expv) ->
       h_cb = CONN(g); h_acct = g.acct; h_P = g.P;
#ifdef D_VAT_WRITE_TIME
       if
       :: stampnow -> clk++; x.vat = clk     /* the defect: verified_at = the write's own clock */
       :: else
       fi;
#endif
       nver++;
       copyG(g, x); g.ex = 1; g.del = 0; g.ver = nver;
       if
       :: kind != 0 ->
          nev++; assert(nev <= MAXLEV);
          /* none for a change that did not happen: only a reconnect or a switch keeps the state */
          assert(kind == Reconnected || kind == AccountSwitched || CONN(g) != h_cb);
          /* one change, one event_id */
          /* (a Google event may change a grant, then the reconnect written past it) */
          assert(cause <= NEV || !cause_done[cause]);
          cause_done[cause] = 1;
          /* a purge's mark judged the account and the age of the version it replaces */
          assert(kind != Purged || (h_acct == ja && h_P < jiat));
          seq_before = seq_last;
#ifdef D12
          g.lseq = MAX(g.lseq, clk); seq_last = g.lseq;   /* the defect: the clock alone, which may not tick */
#else
          g.lseq = MAX(g.lseq + 1, clk); seq_last = g.lseq;
#endif
          h_rm = 0;
          for (h_i : 0 .. NOUT - 1) { if :: !h_rm && g.pend[h_i] == 0 -> g.pend[h_i] = nev; h_rm = 1 :: else fi }
          assert(h_rm);                        /* the outbox bound holds within the model's bounds */
          chain_last = CONN(g);
          printf("@ %e: CAS write v%d %e verified=%d proof t%d sub %d; event e%d Gmail %e (%e -> %e) sequence %d\n",
                 who, g.ver, g.st, g.vfd, g.vat, g.acct, nev, kind, h_cb, chain_last, g.lseq)
       :: else ->
          assert(CONN(g) == h_cb);             /* no change of state is stored without its event */
          printf("@ %e: CAS write v%d %e verified=%d proof t%d sub %d pending e%d,e%d (no event)\n",
                 who, g.ver, g.st, g.vfd, g.vat, g.acct, g.pend[0], g.pend[1])
       fi;
       if
       :: expv == 0 -> t_ex = 1; t_st = g.st; t_vfd = g.vfd; t_pend = EVENTS(g); t_dla = g.dla; t_acct = g.acct; t_ver = g.ver
       :: else
       fi;
       copyG(x, g);
       result = landed
    :: expv != 0 && LIVE(g) && g.ver != expv ->
       printf("@ %e: CAS from v%d lost (v%d is current)\n", who, expv, g.ver); result = conflict
    :: else ->
       if
       :: g.ex && g.del -> printf("@ %e: write from v%d refused: the grant is scheduled for deletion\n", who, expv)
       :: g.ex && !g.del -> printf("@ %e: create refused: a grant is there (v%d)\n", who, g.ver)
       :: else -> printf("@ %e: CAS from v%d refused: no grant\n", who, expv)
       fi;
       result = gone
    fi
  }
}

/* TagResource from the tg_ scratch, stamped v(tg_ver); not conditional on Secrets Manager */
inline tag_write(who) {
  fault(f, F_TAG);
  if
  :: f -> printf("@ %e: tag write for v%d refused\n", who, tg_ver)
  :: !f && LIVE(g) ->
     t_ex = 1; t_st = tg_st; t_vfd = tg_vfd; t_pend = tg_pend; t_dla = tg_dla; t_acct = tg_acct;
#if STAMPED
     t_ver = tg_ver;
#endif
     printf("@ %e: tags written from v%d: %e verified=%d outbox=%d deleting=%d sub %d\n", who, tg_ver, tg_st, tg_vfd, tg_pend, tg_dla, tg_acct)
  :: else -> printf("@ %e: tag write refused: the grant is scheduled for deletion\n", who)
  fi
}

/*
 * The tags of value x, then TokenVault.retagIfOvertaken: right after tagging, describe; if a
 * newer value landed meanwhile, read it and tag again from it (one round in the model).
 */
inline write_tags(x, who) {
  atomic {
    tg_ver = x.ver; tg_st = x.st; tg_vfd = x.vfd; tg_pend = EVENTS(x); tg_dla = x.dla; tg_acct = x.acct;
    tag_write(who);
    if
    :: !f && LIVE(g) && g.ver != tg_ver ->
       printf("@ %e: retagIfOvertaken: v%d is current, not v%d: tagging again from it\n", who, g.ver, tg_ver);
       tg_ver = g.ver; tg_st = g.st; tg_vfd = g.vfd; tg_pend = EVENTS(g); tg_dla = g.dla; tg_acct = g.acct; again = 1
    :: else -> again = 0; tg_ver = 0; tg_st = 0; tg_vfd = 0; tg_pend = 0; tg_dla = 0; tg_acct = 0
    fi
  }
  if
  :: again -> atomic { tag_write(who); again = 0; tg_ver = 0; tg_st = 0; tg_vfd = 0; tg_pend = 0; tg_dla = 0; tg_acct = 0 }
  :: else
  fi
}

/*
 * Secrets Manager's delete of version dexp (GrantStore.delete(expected:)): DeleteSecret cannot
 * be conditioned, so delete, then describe, and restore at once if the version then current is
 * not the one meant. A crash may come between the two.
 */
inline sm_delete(who) {
  atomic {
    if
    :: LIVE(g) -> g.del = 1; printf("@ %e: DeleteSecret (meant: v%d; current: v%d)\n", who, dexp, g.ver)
    :: else -> printf("@ %e: DeleteSecret: already deleted\n", who)
    fi;
    fault(f, F_CRASH);
    if :: f -> printf("@ %e: crashes between DeleteSecret and DescribeSecret\n", who); goto fin :: else fi
  }
#ifndef D_DELETE_NO_RESTORE
  atomic {
    if
    :: g.ex && g.del && g.ver != dexp -> g.del = 0; rst = 1;
       printf("@ %e: DescribeSecret: v%d is newer than v%d: RestoreSecret\n", who, g.ver, dexp)
    :: else -> printf("@ %e: DescribeSecret: v%d deleted as meant\n", who, g.ver)
    fi
  }
#endif
}

/*
 * TokenVault.publishPending (TokenVault+Outbox.swift): put the pending events of x (the value
 * as stored at x.ver), remove those the bus took by a second compare-and-swap (re-reading
 * after a lost one), then delete the grant when a disconnect or a purge waited for them.
 */
inline publish(x, who) {
  if
  :: LIVE(x) && HASWORK(x) ->
     pok = 1; acc0 = 0; acc1 = 0; acc2 = 0;
     if
     :: x.pend[0] != 0 ->
        atomic {
          fault(f, F_BUS);
          if
          :: f ->
             if
             :: printf("@ %e: PutEvents refused; e%d,e%d stay pending\n", who, x.pend[0], x.pend[1]); pok = 0
             :: d_step {
                  for (h_i : 0 .. NOUT - 1) { if :: x.pend[h_i] != 0 -> ev_pub[x.pend[h_i]] = 1 :: else fi }
                  printf("@ %e: PutEvents took e%d,e%d but the answer was lost; they stay pending\n", who, x.pend[0], x.pend[1]);
                  pok = 0 }
             fi
          :: else ->
             d_step {
               for (h_i : 0 .. NOUT - 1) { if :: x.pend[h_i] != 0 -> ev_pub[x.pend[h_i]] = 1 :: else fi }
               acc0 = x.pend[0]; acc1 = x.pend[1]; acc2 = x.pend[2];
               printf("@ %e: PutEvents published e%d,e%d (event_ids as recorded)\n", who, x.pend[0], x.pend[1])
             }
          fi
        }
     :: else
     fi;
     ptries = 0;
     do
     :: pok && ptries < PUB_TRIES ->
        d_step {
          copyG(y, x); h_rm = 0; h_id = 0;
          for (h_i : 0 .. NOUT - 1) {
            if
            :: x.pend[h_i] != 0 && (x.pend[h_i] == acc0 || x.pend[h_i] == acc1 || x.pend[h_i] == acc2) -> h_rm = 1
            :: x.pend[h_i] != 0 && !(x.pend[h_i] == acc0 || x.pend[h_i] == acc1 || x.pend[h_i] == acc2) ->
               y.pend[h_id] = x.pend[h_i]; h_id++
            :: else
            fi
          }
          for (h_i : h_id .. NOUT - 1) { y.pend[h_i] = 0 }
          rm = h_rm;
          wantdel = (y.pend[0] == 0 && y.dla)
        }
        if
        :: !rm && !wantdel -> break
        :: !rm && wantdel -> dexp = x.ver; sm_delete(who); break     /* a deletion alone: the version read */
        :: else ->
           atomic { expv = x.ver; cas(y, 0, 0, res, who) }
           if
           :: res == landed ->
              dexp = y.ver;
              write_tags(y, who);
              if :: wantdel -> sm_delete(who) :: else fi;
              break
           :: res == conflict ->
              ptries++;
              atomic { read_grant(who); copyG(x, r) }
              if :: !LIVE(x) -> break :: else fi
           :: res == gone -> break
           fi
        fi
     :: else -> break
     od
  :: else
  fi
}

/* ---------------- Google's word ---------------- */

/* the cause of a verdict: the Google event whose iat the word holds */
inline cause_of(kind, iat) {
  vc = 0;
  for (h_i : 0 .. NEV - 1) { if :: ge_kind[h_i] == kind && ge_iat[h_i] == iat -> vc = CAUSE_EV(h_i) :: else fi }
  assert(vc != 0)
}

/*
 * What Google's word on account wa (wr, wd, we, wp) makes of the set r: GoogleAccountEvents'
 * verdict under the one staleness rule (an event older than the grant's proof, iat <
 * verified_at, is stale; leeway 0 on integer ticks, which never tie). Leaves the change in w
 * and its event in wk.
 */
inline word_verdict() {
  vk = v_none; wk = 0; copyG(w, r);
  if
  :: !LIVE(r) || r.acct != wa || r.dla -> skip
  :: else ->
     if
     :: wp > r.vat -> vk = v_purge; cause_of(account_purged, wp); ja = wa; jiat = wp;
        w.st = REVOKED; w.vfd = 1; w.dla = 1; wk = Purged
     :: else ->
        if
        :: wr > r.vat && (r.st == ACTIVE || r.st == DISABLED) -> vk = v_revoke; cause_of(tokens_revoked, wr);
           w.st = REVOKED; w.vfd = 1; w.evat = wr; wk = Revoked
        :: else ->
           if
           :: wd > we && wd > r.vat && (r.st == ACTIVE || (r.st == DISABLED && !r.vfd)) -> vk = v_disable;
              cause_of(account_disabled, wd); w.vfd = 1; w.evat = wd;
              if :: r.st == ACTIVE -> w.st = DISABLED; wk = Disabled :: else fi
           :: else ->
              if
              :: we > wd && r.st == DISABLED && r.vfd -> vk = v_enable; w.vfd = 0
              :: else
              fi
           fi
        fi
     fi
  fi;
  skip
}

#ifdef D_NO_WORD
/* the defect D2: no word; one event judged alone against the set (accountEventAt in the value) */
inline event_verdict(e) {
  vk = v_none; wk = 0; copyG(w, r); vc = CAUSE_EV(e);
  if
  :: !LIVE(r) || r.acct != A || r.dla || ge_iat[e] < r.vat -> skip
  :: else ->
     if
     :: ge_kind[e] == account_purged -> vk = v_purge; ja = A; jiat = ge_iat[e]; w.st = REVOKED; w.vfd = 1; w.dla = 1; wk = Purged
     :: ge_kind[e] == tokens_revoked && (r.st == ACTIVE || r.st == DISABLED) ->
        vk = v_revoke; w.st = REVOKED; w.vfd = 1; w.evat = ge_iat[e]; wk = Revoked
     :: (ge_kind[e] == account_disabled || ge_kind[e] == account_enabled) && ge_iat[e] > r.aev ->
        w.aev = ge_iat[e]; vk = v_enable;
        if
        :: ge_kind[e] == account_disabled && (r.st == ACTIVE || (r.st == DISABLED && !r.vfd)) ->
           w.vfd = 1; w.evat = ge_iat[e]; if :: r.st == ACTIVE -> w.st = DISABLED; wk = Disabled :: else fi
        :: ge_kind[e] == account_enabled && r.st == DISABLED && r.vfd -> w.vfd = 0
        :: else
        fi
     :: else
     fi
  fi
}
#endif

#ifdef D_PURGE_NO_REJUDGE
/* the defect D3: after a lost swap the purge marks whatever it reads (as vault.disconnect does) */
#define SETTLE_REJUDGE \
  if \
  :: purging && vk != v_purge && LIVE(r) && !r.dla -> \
     copyG(w, r); w.st = REVOKED; w.vfd = 1; w.dla = 1; wk = Purged; vk = v_purge \
  :: else \
  fi;
#else
#define SETTLE_REJUDGE
#endif

/*
 * GoogleAccountEvents.apply to one grant (TokenVault.settle): read and judge, then the
 * compare-and-swap of the verdict, deciding again on a newer value after a lost swap. The
 * judgment (account and age) and the change are one compare-and-swap; a purge is a mark,
 * then the outbox publishes Gmail Purged and deletes the version marked.
 * VERDICT is word_verdict() or, with D2, event_verdict(e).
 */
#define SETTLE(VERDICT, who) \
  settled = 0; stfail = 0; sttries = 0; purging = 0; \
  do \
  :: sttries < SETTLE_TRIES -> \
     atomic { read_grant(who); VERDICT; SETTLE_REJUDGE skip }; \
     if \
     :: vk == v_none -> break \
     :: else -> purging = (vk == v_purge) \
     fi; \
     atomic { expv = r.ver; cas(w, wk, vc, res, who) }; \
     if \
     :: res == landed -> settled = 1; write_tags(w, who); publish(w, who); break \
     :: res == conflict -> sttries++ \
     :: res == gone -> break \
     fi \
  :: else -> stfail = 1; exhausted = 1; printf("@ %e: the grant kept changing: 503\n", who); break \
  od

#define SETTLE_WORD(who) SETTLE(word_verdict(), who)

/*
 * A restore (the delete's own, or the sweep's) brings back a value the receiver's listing
 * could not show: Google's word judges it as it judges any write (TokenVault.honourGoogle
 * after a deletion answered "restored, not deleted").
 */
#if !defined(D_NO_WORD) && !defined(D_RESTORE_NO_WORD)
#define JUDGE_RESTORED(who) \
  if \
  :: rst -> rst = 0; read_grant(who); \
     if \
     :: LIVE(r) && r.acct != 0 && !r.dla && r.st == ACTIVE -> wa = r.acct; READ_WORD(who); SETTLE_WORD(who) \
     :: else \
     fi \
  :: else \
  fi
#else
#define JUDGE_RESTORED(who) skip
#endif

/* one strongly consistent read of the account's word (a crash may come instead) */
#define READ_WORD(who) \
  atomic { \
    fault(f, F_CRASH); \
    if :: f -> printf("@ %e: crashes before reading Google's word\n", who); goto fin :: else fi; \
    wr = w_rev[wa]; wd = w_dis[wa]; we = w_ena[wa]; wp = w_pur[wa]; \
    printf("@ %e: reads Google's word on account %d: revoked t%d disabled t%d enabled t%d purged t%d\n", who, wa, wr, wd, we, wp) \
  }

/* ---------------- Google's answers ---------------- */

/* the refresh of r at Google (ClientTrial.refresh), then the write (TokenRefresher.refresh) */
inline refresh_one(cause, who) {
  atomic {
    fault(f, F_GDOWN);
    if :: f -> printf("@ %e: Google out of reach: transient, nothing changed\n", who); goto fin :: else fi;
    clk++; R = clk; gok = ALIVE(r.tacct, r.tok);
    if
    :: gok -> printf("@ %e: Google renews t%d at t%d\n", who, r.tok, R)
    :: else -> printf("@ %e: Google answers invalid_grant for t%d at t%d\n", who, r.tok, R)
    fi;
    copyG(w, r); wk = 0;
    if
    :: gok -> w.st = ACTIVE; w.vfd = 1; w.vat = R; w.P = R; w.acct = r.tacct; w.evat = 0;
       if
       :: r.st == DISABLED -> wk = Enabled
       :: r.st == REVOKED -> wk = Reconnected
       :: else
       fi
    :: else -> w.st = REVOKED; w.vfd = 1; w.evat = 0;
       if :: r.st != REVOKED -> wk = Revoked :: else fi
    fi;
    stampnow = gok
  }
  atomic {
    expv = r.ver; cas(w, wk, cause, res, who); stampnow = 0;
    if :: res != landed -> goto fin :: else fi;        /* the refresh loses: newer tokens stay */
    fault(f, F_LOST);
    if :: f -> printf("@ %e: the write's answer is lost: counted transient (no tags, no publish)\n", who); goto fin :: else fi
  }
  write_tags(w, who);
  publish(w, who);
#ifndef D_NO_WORD
  if
  :: gok && w.acct != 0 -> wa = w.acct; READ_WORD(who); SETTLE_WORD(who)
  :: else
  fi
#endif
}

/* ---------------- the processes ---------------- */

/* Google: issues NEV security events for account A, at ticks of the clock, as its state allows */
/* Google issues event number i on account A, of a kind its state allows, at the next tick */
inline google_issues(i, k) {
  if
  :: (G_KINDS & 1) -> k = tokens_revoked
  :: (G_KINDS & 2) && gg_dis[A] <= gg_ena[A] -> k = account_disabled
  :: (G_KINDS & 4) && gg_dis[A] > gg_ena[A] -> k = account_enabled
  :: (G_KINDS & 8) -> k = account_purged
  fi;
  clk++; ge_kind[i] = k; ge_iat[i] = clk;
  if
  :: k == tokens_revoked -> gg_rev[A] = clk
  :: k == account_disabled -> gg_dis[A] = clk
  :: k == account_enabled -> gg_ena[A] = clk
  :: k == account_purged -> gg_pur[A] = clk
  fi;
  ge_n++;
  printf("@ google: issues %e for account %d, iat t%d (jti %d)\n", k, A, clk, i)
}

proctype Google() {
  byte i; mtype k;
  do
  :: i < NEV && gg_pur[A] == 0 && G_KINDS != 0 -> atomic { google_issues(i, k); i++; k = 0 }
  :: else -> break
  od;
  atomic { i = 0; done++ }
}

/* store-tokens (StoreTokensHandler.respond -> TokenVault.store / storeOnce) */
proctype StoreTokens(byte a; byte cause) {
  WORKER_LOCALS; byte tok; byte P; bit vfd; bit refused;
  /* the app signs in (Google issues a new refresh token); GrantVerifier proves it (answer time P) */
  atomic {
    if
    :: gg_pur[a] == 0 && gg_dis[a] <= gg_ena[a] -> clk++; tok = clk;
       printf("@ store-tokens#%d: the app signs in to account %d; Google issues refresh token t%d\n", cause - C_STORE1 + 1, a, tok)
    :: else -> printf("@ store-tokens#%d: Google refuses the sign-in (account %d disabled or purged)\n", cause - C_STORE1 + 1, a); goto fin
    fi;
    fault(f, F_GDOWN);
    if
    :: f -> vfd = 0; P = 0; printf("@ store-tokens: Google out of reach: stored as sent, unverified\n")
    :: else -> clk++; vfd = 1; P = clk; printf("@ store-tokens: Google proves t%d at t%d (proof t%d)\n", tok, clk, P)
    fi
  }
#ifdef D_WORD_BEFORE_WRITE
  if :: vfd -> wa = a; READ_WORD(store_tokens) :: else fi;
#endif
retry:
  /* the read, and GmailTokenSet.merging (verified_at = P, Google's answer) + recordingStore */
  atomic {
    read_grant(store_tokens);
    if
    :: r.ex && r.del -> goto restore
    :: else
    fi;
    copyG(w, r); refused = 0; wk = 0;
    if
    :: !r.ex || r.dla ->                      /* a first connection (also over a disconnect's mark) */
       w.st = ACTIVE; w.vfd = vfd; w.vat = P; w.P = P; w.acct = (vfd -> a : 0); w.tacct = a; w.tok = tok;
       w.evat = 0; w.aev = 0; w.dla = 0; wk = Connected
    :: r.ex && !r.dla && r.tacct == a ->      /* the same account */
       if
       :: vfd && (r.st == REVOKED || r.st == DISABLED) && r.evat > P -> refused = 1   /* Google's event is newer than our proof */
       :: vfd && !((r.st == REVOKED || r.st == DISABLED) && r.evat > P) ->
          w.st = ACTIVE; w.vfd = 1; w.vat = P; w.P = P; w.acct = a; w.tok = tok; w.evat = 0; wk = Reconnected
       :: !vfd ->                              /* the app's word only: a refused or disabled set stays so */
          w.vfd = 0; w.vat = 0; w.P = 0; w.tok = tok;
          if :: r.st == ACTIVE -> wk = Reconnected :: else fi
       fi
    :: else ->                                 /* another account: a switch */
       w.st = ACTIVE; w.vfd = vfd; w.vat = P; w.P = P; w.acct = (vfd -> a : 0); w.tacct = a; w.tok = tok;
       w.evat = 0; w.aev = 0; wk = AccountSwitched
    fi;
    stampnow = vfd;
    if
    :: refused -> printf("@ store-tokens: Google's word on the stored set is newer than the proof: 400\n"); goto fin
    :: else
    fi
  }
  atomic {
    expv = (r.ex -> r.ver : 0); cas(w, wk, cause, res, store_tokens); stampnow = 0;
    if
    :: res == landed ->
       /* a lost answer is retried with the same ClientRequestToken, which answers our version: not modelled apart */
       fault(f, F_CRASH);
       if :: f -> printf("@ store-tokens: crashes after the write\n"); goto fin :: else fi
    :: else -> tries++;
       if
       :: tries < STORE_TRIES -> goto retry
       :: else -> exhausted = 1; printf("@ store-tokens: kept losing: 409\n"); goto fin
       fi
    fi
  }
  if :: r.ex -> write_tags(w, store_tokens) :: else fi;
  publish(w, store_tokens);
#ifndef D_NO_WORD
  /* TokenVault.honourGoogle: after the write and its tags, Google's word on the account */
  if
  :: w.acct != 0 ->
     wa = w.acct;
#ifndef D_WORD_BEFORE_WRITE
     READ_WORD(store_tokens);
#endif
     SETTLE_WORD(store_tokens);
     if
     :: settled -> printf("@ store-tokens: Google's word overrules the proof: 400, not connected\n")
     :: else -> printf("@ store-tokens: 201 connected\n")
     fi
  :: else -> printf("@ store-tokens: 201 (unverified)\n")
  fi;
#endif
  goto fin;
restore:
  /* scheduled for deletion (a disconnect): RestoreSecret, then read again */
  atomic {
    if :: g.ex && g.del -> g.del = 0; printf("@ store-tokens: RestoreSecret v%d (a disconnect's deletion)\n", g.ver) :: else fi;
    tries++;
    if :: tries <= STORE_TRIES -> goto retry :: else -> exhausted = 1; goto fin fi
  }
fin:
  atomic { RESET_LOCALS; tok = 0; P = 0; vfd = 0; refused = 0; done++ }
}

/* Google's word recorded (GoogleAccountWord.recording: a max per kind), then held in wr..wp */
#define RECORD_WORD \
    if \
    :: ge_kind[e] == tokens_revoked -> w_rev[a] = MAX(w_rev[a], ge_iat[e]) \
    :: ge_kind[e] == account_disabled -> w_dis[a] = MAX(w_dis[a], ge_iat[e]) \
    :: ge_kind[e] == account_enabled -> w_ena[a] = MAX(w_ena[a], ge_iat[e]) \
    :: ge_kind[e] == account_purged -> w_pur[a] = MAX(w_pur[a], ge_iat[e]) \
    fi; \
    wr = w_rev[a]; wd = w_dis[a]; we = w_ena[a]; wp = w_pur[a]; \
    printf("@ security-events(jti %d): records Google's word on account %d: revoked t%d disabled t%d enabled t%d purged t%d\n", e, a, wr, wd, we, wp)

/*
 * security-events (SecurityEventsHandler.respond -> GoogleAccountEvents.apply): one delivery
 * of Google's event (any issued one: in any order, again after a 503 or not). `final`: the
 * delivery Google makes after the run of event e0, never answered 202.
 */
proctype Receiver(byte e0; bit final) {
  WORKER_LOCALS; byte e; byte a;
  atomic {
#if ISSUE_AT_DELIVERY
    if :: !final -> google_issues(0, wk); wk = 0 :: else fi;
#endif
    ge_n > 0;
    if
    :: final -> e = e0
    :: else -> e = 0; do :: e < ge_n - 1 -> e++ :: break od
    fi;
    a = A;
    printf("@ security-events(jti %d): Google delivers %e iat t%d\n", e, ge_kind[e], ge_iat[e]);
    /* the ledger (SecurityEventsHandler.respond): a record answers 202; another copy's claim, 503 */
    if
    :: led[e] == 2 -> printf("@ security-events(jti %d): recorded before: 202, not acted on again\n", e); ge_acked[e] = 1; goto fin
    :: led[e] == 1 -> printf("@ security-events(jti %d): another copy holds the claim: 503, Google delivers again\n", e); goto fin
    :: else -> led[e] = 1
    fi;
#if !defined(D_NO_WORD) && !defined(D_LIST_BEFORE_WORD)
    RECORD_WORD;
#endif
    skip
  }
  /* GrantStore.users(with: googleSubject): the listing, which may lag */
  atomic {
    fault(f, F_LAG);
    shown = (!f && t_ex && LIVE(g) && t_acct == a);
    printf("@ security-events(jti %d): lists grants of account %d: shows the grant=%d (lagging=%d)\n", e, a, shown, f);
#ifdef D_LIST_BEFORE_WORD
    f = 0
  }
  atomic {
    RECORD_WORD;
#endif
    fault(f, F_CRASH);
    if :: f -> printf("@ security-events(jti %d): crashes after claiming the jti\n", e); goto fin :: else fi
  }
  if
  :: shown ->
     wa = a;
#ifdef D_NO_WORD
     SETTLE(event_verdict(e), security_events)
#else
     SETTLE_WORD(security_events);
     JUDGE_RESTORED(security_events)
#endif
  :: else
  fi;
  atomic {
    if :: stfail -> led[e] = 0; printf("@ security-events(jti %d): the claim released; 503, Google delivers again\n", e); goto fin :: else fi;
    fault(f, F_CRASH);
    if :: f -> printf("@ security-events(jti %d): crashes before recording the jti (its claim runs out)\n", e); goto fin :: else fi;
    led[e] = 2; ge_acked[e] = 1; printf("@ security-events(jti %d): recorded; 202\n", e)
  }
fin:
  atomic { RESET_LOCALS; e = 0; a = 0; done++ }
}

/* disconnect (DisconnectHandler.respond -> TokenVault.disconnect) */
proctype Disconnect(byte cause) {
  WORKER_LOCALS;
retry:
  atomic {
    read_grant(disconnect);
    if
    :: !LIVE(r) -> printf("@ disconnect: 404 nothing connected\n"); goto fin
    :: r.dla -> copyG(w, r); goto marked            /* an earlier attempt's mark */
    :: else -> copyG(w, r); w.st = REVOKED; w.vfd = 1; w.dla = 1
    fi
  }
  atomic {
    expv = r.ver; cas(w, Disconnected, cause, res, disconnect);
    if
    :: res == landed ->
       fault(f, F_LOST);
       if
       :: f ->
#ifdef D_LOST_MARK_TWICE
          printf("@ disconnect: the mark's answer is lost; its retry finds another version current and decides again\n");
          tries++;
          if :: tries <= STORE_TRIES -> goto retry :: else -> goto fin fi
#else
          printf("@ disconnect: the mark's answer is lost; the retry (same ClientRequestToken) answers v%d: ours\n", w.ver)
#endif
       :: else
       fi
    :: res == conflict -> tries++;
       if :: tries <= STORE_TRIES -> goto retry :: else -> exhausted = 1; printf("@ disconnect: 409\n"); goto fin fi
    :: res == gone -> printf("@ disconnect: 404\n"); goto fin
    fi
  }
marked:
  write_tags(w, disconnect);
  publish(w, disconnect);
  JUDGE_RESTORED(disconnect);
  printf("@ disconnect: 200\n");
fin:
  atomic { RESET_LOCALS; done++ }
}

/* fresh-token (TokenRefresher.freshTokenSet) */
proctype FreshToken(byte cause) {
  WORKER_LOCALS;
  read_grant(fresh_token);
  if :: !LIVE(r) -> printf("@ fresh-token: not connected\n"); goto fin :: else fi;
  if
  :: HASWORK(r) -> publish(r, fresh_token); JUDGE_RESTORED(fresh_token); read_grant(fresh_token);
     if :: !LIVE(r) -> printf("@ fresh-token: not connected\n"); goto fin :: else fi
  :: else
  fi;
#ifndef D_NO_WORD
  if
  :: r.acct != 0 && r.st == ACTIVE ->
     wa = r.acct;
     atomic { READ_WORD(fresh_token); word_verdict() };
     if
     :: vk != v_none -> SETTLE_WORD(fresh_token); printf("@ fresh-token: Google's word refuses the grant\n"); goto fin
     :: else
     fi
  :: else
  fi;
#endif
  if
  :: r.st != ACTIVE -> printf("@ fresh-token: refused (%e)\n", r.st); goto fin
  :: r.st == ACTIVE && r.tok != 0 -> printf("@ fresh-token: the access token is due\n"); refresh_one(cause, fresh_token)
  :: r.st == ACTIVE -> printf("@ fresh-token: serves the stored access token\n")
  fi;
fin:
  atomic { RESET_LOCALS; done++ }
}

/*
 * The refresh run (RefreshJob.run / listDue -> TokenRefresher.refreshIfDue), its outbox sweep
 * and its tag repair. `final`: the next run, after every other process ended (fault-free; no
 * access token due by its expiry then).
 */
proctype RefreshRun(byte cause; bit final) {
  WORKER_LOCALS; byte a; bit cand; bit due; bit ldel;
#ifndef D_NO_WORD
  /* 1. Google's recent word, applied to the grants the listing by sub shows now */
  a = 1;
  do
  :: a <= NA ->
     if
     :: w_rev[a] != 0 || w_dis[a] != 0 || w_ena[a] != 0 || w_pur[a] != 0 ->
        atomic {
          fault(f, F_LAG);
          shown = (!f && t_ex && LIVE(g) && t_acct == a);
          printf("@ refresh-run: lists grants of account %d (its word is recorded): shows the grant=%d\n", a, shown);
          if
          :: shown -> wr = w_rev[a]; wd = w_dis[a]; we = w_ena[a]; wp = w_pur[a]; wa = a;
             printf("@ refresh-run: reads Google's word on account %d: revoked t%d disabled t%d enabled t%d purged t%d\n", a, wr, wd, we, wp)
          :: else
          fi
        }
        if
        :: shown -> SETTLE_WORD(refresh_run)
        :: else
        fi
     :: else
     fi;
     a++
  :: else -> break
  od;
#endif
  /* 2. listDue: the tags (on Secrets Manager, with the version they should describe) */
  atomic {
    ldel = g.del;
    /* stale tags (their stamp names another version) are read when they would keep the run away */
    cand = g.ex && (ldel || t_pend || t_dla || !t_vfd || (STAMPED && t_ver != g.ver && t_st != ACTIVE));
    printf("@ refresh-run: listDue: exists=%d deleted=%d; tags %e verified=%d outbox=%d deleting=%d stamp v%d (current v%d)\n",
           g.ex, ldel, t_st, t_vfd, t_pend, t_dla, t_ver, g.ver);
    if
    :: !final && g.ex && !cand && t_st == ACTIVE -> due = 1; printf("@ refresh-run: the access token is due by its expiry\n")
    :: final && g.ex && !cand && t_st == ACTIVE && t_ver != g.ver ->
       due = 1; printf("@ refresh-run: a grant listed active with stale tags, read when it falls due\n")
    :: else -> due = 0
    fi;
    if :: !cand && !due -> goto fin :: else fi;
    /* the sweep finishing a deletion a crash cut short (between DeleteSecret and DescribeSecret) */
    if
    :: ldel ->
#ifndef D_SWEEP_NO_RESTORE
       if
       :: g.ex && g.del && !LEGIT_DELETED -> g.del = 0; rst = 1;
          printf("@ refresh-run: sweep: deleted v%d is not a finished disconnect: RestoreSecret\n", g.ver)
       :: else -> printf("@ refresh-run: sweep: deleted as meant\n"); goto fin
       fi
#else
       goto fin
#endif
    :: else
    fi
  }
  read_grant(refresh_run);
  if :: !LIVE(r) -> goto fin :: else fi;
  if
  :: rst -> JUDGE_RESTORED(refresh_run); read_grant(refresh_run);
     if :: !LIVE(r) -> goto fin :: else fi
  :: else
  fi;
  /* tag repair: the value is the authority */
  if
  :: (STAMPED && r.ver != t_ver) || r.st != t_st || r.vfd != t_vfd || EVENTS(r) != t_pend || r.dla != t_dla || r.acct != t_acct ->
     printf("@ refresh-run: the tags do not describe v%d: repaired from the value\n", r.ver);
     write_tags(r, refresh_run)
  :: else
  fi;
  /* the outbox sweep */
  if
  :: HASWORK(r) -> publish(r, refresh_run); JUDGE_RESTORED(refresh_run); read_grant(refresh_run);
     if :: !LIVE(r) -> goto fin :: else fi
  :: else
  fi;
  if
  :: (r.st == ACTIVE || !r.vfd) && r.tok != 0 && (!r.vfd || due) -> refresh_one(cause, refresh_run)
  :: else
  fi;
fin:
  atomic { RESET_LOCALS; a = 0; cand = 0; due = 0; ldel = 0; done++ }
}

/* ---------------- the properties ---------------- */

/* Google's word, not older than the grant's real proof, against a live grant */
#define WORD_DEMANDS(x) (w_pur[x.acct] > x.P || (w_rev[x.acct] > x.P && (x.st == ACTIVE || x.st == DISABLED)) \
                         || (w_dis[x.acct] > w_ena[x.acct] && w_dis[x.acct] > x.P && x.st == ACTIVE))

inline check_word_wins(stage) {
  d_step {
    if
    :: LIVE(g) && g.acct != 0 && !g.dla ->
       printf("@ check %d: v%d %e verified=%d, real proof t%d; word revoked t%d disabled t%d enabled t%d purged t%d\n",
              stage, g.ver, g.st, g.vfd, g.P, w_rev[g.acct], w_dis[g.acct], w_ena[g.acct], w_pur[g.acct]);
       /* no grant is active when Google's word not older than its proof says revoked, disabled or purged */
       assert(!(g.st == ACTIVE && WORD_DEMANDS(g)))
    :: else
    fi
  }
}

ltl sequence_increases { [] (seq_last == 0 || seq_before < seq_last) }

init {
  byte n; byte e;
  atomic {
#if INIT_CONNECTED
    /* store-tokens#1 ran alone before: v1 of account A, proved at t2, its Gmail Connected published */
    clk = 2; nver = 1; g.ex = 1; g.ver = 1; g.st = ACTIVE; g.vfd = 1; g.vat = 2; g.P = 2; g.acct = A; g.tacct = A;
    g.tok = 1; g.lseq = 2; nev = 1; ev_pub[1] = 1; chain_last = connected; seq_last = 2; cause_done[C_STORE1] = 1;
    t_ex = 1; t_st = ACTIVE; t_vfd = 1; t_pend = 0; t_dla = 0; t_acct = A; t_ver = 1;
    printf("@ init: v1 ACTIVE verified=1 proof t2 sub 1 (account A), its Gmail Connected published\n");
#endif
#if ISSUE_AT_DELIVERY
    n = 0;
#else
    run Google(); n = 1;
#endif
#if P_STORE1
    run StoreTokens(A, C_STORE1); n++;
#endif
#if P_STORE2
    if
    :: run StoreTokens(A, C_STORE2)                /* a reconnect */
    :: !NO_SWITCH -> run StoreTokens(B, C_STORE2)  /* a switch */
    fi; n++;
#endif
#if P_REFRESH
    run RefreshRun(C_REFRESH, 0); n++;
#endif
#if P_FRESH
    run FreshToken(C_FRESH); n++;
#endif
#if P_DISC
    run Disconnect(C_DISC); n++;
#endif
    e = 0;
    do
    :: e < NRECV -> run Receiver(0, 0); n++; e++
    :: else -> break
    od
  }
  done == n;
  /* quiescence: no fault from here on. Google delivers again each event never answered 202. */
  atomic {
    faults_on = 0; printf("@ quiescence: %d processes ended (%d faults)\n", n, nfaults);
    /* a claim whose holder died runs out (its lease) */
    for (e : 0 .. NEV - 1) { if :: led[e] == 1 -> led[e] = 0 :: else fi }
    e = 0
  }
  do
  :: e < ge_n -> if :: !ge_acked[e] -> run Receiver(e, 1); n++; done == n :: else fi; e++
  :: else -> break
  od;
  /* before any repair, in a run without faults or spent retries, the processes alone settle the
     grant: whichever of the receiver and a writer comes second sees the other */
  if
  :: nfaults == 0 && !exhausted ->
     check_word_wins(1);
     /* and a deletion took only what its deleter judged, before any sweep */
     assert(!(g.ex && g.del) || g.dla)
  :: else
  fi;
  /* the next refresh run, fault-free */
  run RefreshRun(C_FINAL, 1); n++;
  done == n;
  d_step {
    printf("@ check: after the next refresh run\n");
    check_word_wins(2);
    if
    :: LIVE(g) ->
       /* Google's latest account state wins (Google's own state, which the word now holds whole) */
       assert(g.st != ACTIVE || (g.vfd && ALIVE(g.tacct, g.tok)));
       assert(g.st != DISABLED || gg_dis[g.tacct] > gg_ena[g.tacct]);
       /* the listing converged to the value */
       assert(t_ex && t_st == g.st && t_vfd == g.vfd && t_pend == EVENTS(g) && t_dla == g.dla && t_acct == g.acct);
       /* a disconnect's or purge's deletion is finished */
       assert(!g.dla)
    :: else
    fi;
    /* no reconnect deleted by a disconnect or purge that did not judge it */
    assert(!(g.ex && g.del) || g.dla);
    /* every stored change's event is published; nothing pending */
    assert(g.pend[0] == 0);
    for (e : 1 .. nev) { assert(ev_pub[e]) }
    /* the events chain to the state the grant ends in */
    assert(chain_last == CONN(g))
  }
}
