#!/usr/bin/env python3
"""Writes the bundled demo workspace of Acme (a fictional bilingual SaaS company) in the
contract's export formats: slack/, notion/, rocketchat/, tools/.

The output is committed; this script is how it was made and how to change it. Every date is
fixed (nothing is relative to "now"), ids are derived from content, and the output is
byte-for-byte reproducible:  python3 examples/acme/generate.py
"""
import datetime as dt
import hashlib
import json
import os
import random
import shutil

ROOT = os.path.dirname(os.path.abspath(__file__))
UTC = dt.timezone.utc
rng = random.Random(20261120)


def T(s):
    """'2026-10-20 09:30' (UTC) -> datetime"""
    return dt.datetime.strptime(s, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


def hexid(*parts):
    return hashlib.md5("|".join(parts).encode()).hexdigest()


def rcid(*parts):
    alphabet = "23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz"
    h = int(hashlib.sha1("|".join(parts).encode()).hexdigest(), 16)
    out = ""
    for _ in range(17):
        h, r = divmod(h, len(alphabet))
        out += alphabet[r]
    return out


# ---------------------------------------------------------------- people
PEOPLE = [
    # slack id, username, English name, Japanese name, rocketchat username
    ("U01AIKO", "aiko.tanaka", "Aiko Tanaka", "田中 愛子", "aiko"),
    ("U02KEN", "ken.sato", "Ken Sato", "佐藤 健", "ken"),
    ("U03MARIA", "maria.lopez", "Maria Lopez", "マリア・ロペス", "maria"),
    ("U04DAVID", "david.kim", "David Kim", "デイビッド・キム", "david"),
    ("U05YUKI", "yuki.yamamoto", "Yuki Yamamoto", "山本 由紀", "yuki"),
    ("U06HARUTO", "haruto.suzuki", "Haruto Suzuki", "鈴木 陽翔", "haruto"),
    ("U07EMILY", "emily.chen", "Emily Chen", "エミリー・チェン", "emily"),
    ("U08RAJ", "raj.patel", "Raj Patel", "ラージ・パテル", "raj"),
    ("U09SAKURA", "sakura.ito", "Sakura Ito", "伊藤 さくら", "sakura"),
    ("U10TOM", "tom.becker", "Tom Becker", "トム・ベッカー", "tom"),
    ("U11MEI", "mei.nakamura", "Mei Nakamura", "中村 芽衣", "mei"),
    ("U12LEO", "leo.garcia", "Leo Garcia", "レオ・ガルシア", "leo"),
    ("U13KENJI", "kenji.watanabe", "Kenji Watanabe", "渡辺 健二", "kenji"),
]
P = {p[1].split(".")[0]: p for p in PEOPLE}


def uid(who):
    return P[who][0]


def mention(who):
    return "<@%s>" % uid(who)


# ---------------------------------------------------------------- slack
CHANNELS = [
    ("C01GENERAL", "general", "Company-wide chatter"),
    ("C02ANNOUNCE", "announcements", "Official announcements"),
    ("C03PRICING", "pricing", "Pricing and packaging"),
    ("C04PLATFORM", "eng-platform", "Platform engineering"),
    ("C05INCIDENTS", "incidents", "Incident coordination"),
    ("C06SALES", "sales", "Sales team"),
    ("C07MOBILE", "mobile", "Mobile app"),
    ("C08SECURITY", "security", "Security and compliance"),
]

slack_msgs = []  # dicts: channel, time, user, text, key, parent


def S(channel, when, who, text, key=None, parent=None):
    slack_msgs.append(dict(channel=channel, time=T(when), user=who, text=text, key=key, parent=parent))


# --- Pricing: a decision, later reversed
S("pricing", "2026-09-10 16:00", "aiko", "Kicking off the Q3 pricing review. Proposal on the table: raise the Pro plan from $39 to $49 per seat per month. Comments by Friday please.", key="price-kickoff")
S("pricing", "2026-09-10 16:20", "maria", "From the sales side, $49 will hurt the mid-market deals we have in the pipeline. Can we at least keep annual billing at the old price for renewals?", parent="price-kickoff")
S("pricing", "2026-09-10 17:05", "tom", "Finance model says $49 gets us to the gross margin target in Q4 even with 5% churn.", parent="price-kickoff")
S("pricing", "2026-09-15 10:00", "aiko", "Decision: we are raising the Pro plan to $49 per seat per month, effective October 1. Existing annual contracts keep their price until renewal. Thanks all for the input.", key="price-decision-49")
S("pricing", "2026-09-15 10:12", "maria", "Understood. I'll brief the sales team today.", parent="price-decision-49")
S("pricing", "2026-09-22 09:30", "emily", "Draft of the pricing page copy for the $49 Pro plan is in the Marketing drive, please review.")
S("pricing", "2026-10-14 15:00", "maria", "Heads up: we lost two mid-market deals this month and both cited the $49 price. Win rate on Pro dropped from 31% to 22%.", key="price-winrate")
S("pricing", "2026-10-14 15:40", "tom", "That's worse than the model assumed. Let's revisit at the pricing committee on the 20th.", parent="price-winrate")
S("pricing", "2026-10-20 13:00", "aiko", "Update from today's pricing committee: we are walking back the $49 price. Final decision: Pro plan is $45 per seat per month, and annual billing gets 2 months free. Takes effect November 1. Minutes are in Notion.", key="price-decision-45")
S("pricing", "2026-10-20 13:15", "emily", "Got it, I'll update the pricing page to $45 before Nov 1.", parent="price-decision-45")
S("pricing", "2026-10-20 13:22", "maria", "Great news for the pipeline. Confirming: $45 applies to new deals signed from Nov 1?", parent="price-decision-45")
S("pricing", "2026-10-20 13:30", "aiko", "Yes, new deals from Nov 1. Renewals also move to $45 at their next renewal date.", parent="price-decision-45")
S("pricing", "2026-10-28 11:00", "emily", "Pricing page now shows $45 per seat for Pro, live on the site.")
S("pricing", "2026-11-12 10:00", "tom", "First look at November: Pro conversions are back up to 29% since the $45 price went live.")
S("pricing", "2026-08-03 14:00", "aiko", "Enterprise plan stays custom-priced; minimum is 50 seats. No change planned this year.")
S("pricing", "2026-08-19 09:00", "leo", "Shared the seat-usage dashboard for the pricing review: median Pro team has 14 seats.")

# --- Postgres migration: stale status page vs fresh chat
S("eng-platform", "2026-08-05 10:00", "ken", "Decision from architecture review: we will migrate the billing database from MySQL 5.7 to PostgreSQL 16. Main reasons: JSONB for invoice line items, better replication tooling, and MySQL 5.7 is end of life.", key="pg-decision")
S("eng-platform", "2026-08-05 10:20", "yuki", "Agreed. I can own the schema conversion. Estimate is 6 weeks including dual writes.", parent="pg-decision")
S("eng-platform", "2026-08-05 10:35", "david", "I'll set up the Postgres cluster with Patroni in staging this sprint.", parent="pg-decision")
S("eng-platform", "2026-09-09 16:00", "yuki", "Postgres migration status: schema converted, dual writes running in staging. Target cutover is October 18.")
S("eng-platform", "2026-10-16 18:00", "ken", "Cutover for the Postgres migration is postponed to November 15 because of the payment provider freeze in late October.", key="pg-postpone")
S("eng-platform", "2026-11-16 02:10", "yuki", "Postgres cutover done! Billing is now fully on PostgreSQL 16 as of Nov 16 01:40 UTC. MySQL is read-only and will be decommissioned on Dec 15.", key="pg-done")
S("eng-platform", "2026-11-16 02:25", "david", "Replication lag is zero and error rates are flat. Nice work.", parent="pg-done")
S("eng-platform", "2026-11-16 08:00", "ken", "Congrats team. Closing the migration epic.", parent="pg-done")
S("eng-platform", "2026-07-14 11:00", "david", "We switched CI from Jenkins to GitHub Actions today. All repos build on Actions now; Jenkins will be shut down at the end of July.", key="ci-switch")
S("eng-platform", "2026-07-14 11:20", "leo", "The data pipelines repo still has a Jenkins job for nightly exports, moving it this week.", parent="ci-switch")
S("eng-platform", "2026-07-30 17:00", "david", "Jenkins is shut down. Build minutes on GitHub Actions so far: 41,000 this month.")
S("eng-platform", "2026-09-30 14:00", "ken", "Reminder: the internal admin API rate limit is 300 requests per minute per service account. That's the internal one, not the public API.")
S("eng-platform", "2026-10-07 10:00", "yuki", "Kubernetes upgrade to 1.31 finished on all clusters. k8s node pools now use the new instance type.")
S("eng-platform", "2026-11-03 09:15", "david", "Terraform state moved to the new bucket. If you run terraform locally, re-run init.")

# --- Incidents
S("incidents", "2026-10-02 03:20", "david", "SEV2: elevated 5xx on the invoice export API since 03:05 UTC. Investigating.", key="inc-oct2")
S("incidents", "2026-10-02 04:05", "david", "Mitigated: rolled back the export service to the previous release. Root cause was a bad index migration. Postmortem to follow.", parent="inc-oct2")
S("incidents", "2026-11-05 06:40", "yuki", "SEV1: login failures for all EU customers since 06:31 UTC. Paging the on-call.", key="inc-nov5")
S("incidents", "2026-11-05 07:30", "david", "Resolved at 07:22 UTC. Expired SAML certificate for the EU identity provider. Certificate renewed; adding expiry monitoring.", parent="inc-nov5")
S("incidents", "2026-11-06 10:00", "ken", "Postmortem for the Nov 5 EU login outage is in Notion. Action item: certificate expiry alerts 30 days ahead, owner David.")

# --- Announcements (cross-posted in RocketChat and Notion, sometimes translated)
S("announcements", "2026-10-01 09:00", "tom", "Office move: the Tokyo team moves to the new Shibuya office on December 1. The new address is Shibuya Scramble Square 21F. Desks are assigned in the Office Move FAQ.", key="ann-office")
S("announcements", "2026-11-02 09:00", "tom", "Year-end holidays: the company is closed from December 27 to January 4. Support keeps an on-call rotation.", key="ann-holiday")
S("announcements", "2026-09-01 09:00", "aiko", "Welcome Kenji Watanabe, who joins as Head of Customer Success for Japan! Kenji will lead the Japan expansion.", key="ann-kenji")
S("announcements", "2026-10-15 09:00", "raj", "Security reminder: MFA is now mandatory for all accounts, including contractors. Accounts without MFA will be locked on November 1.", key="ann-mfa")
S("announcements", "2026-11-18 09:00", "aiko", "All-hands on November 26 at 17:00 JST / 08:00 UTC: Q4 roadmap and the Japan launch.")

# --- Sales
S("sales", "2026-10-05 10:00", "maria", "Q3 results: closed $1.2M in new ARR, 112% of target.")
S("sales", "2026-10-21 09:00", "maria", "New price sheet with the $45 Pro price is attached to the Sales Playbook in Notion. Use it for all quotes from Nov 1.")
S("sales", "2026-11-10 16:00", "kenji", "Japan pipeline: 14 qualified opportunities, 3 in contract review. Japanese invoice format (適格請求書) support is the most common request.")
S("sales", "2026-08-25 11:00", "maria", "Discount policy reminder: anything above 20% needs CFO approval.")

# --- Mobile
S("mobile", "2026-10-01 10:00", "haruto", "Mobile v3 plan: release on November 24 with offline mode and the new invoice scanner.", key="mob-plan")
S("mobile", "2026-10-22 10:00", "haruto", "v3 beta is on TestFlight. Crash-free sessions at 99.2%.")
S("mobile", "2026-11-04 15:00", "mei", "Final designs for the v3 onboarding screens are in Figma.")

# --- Security
S("security", "2026-09-05 10:00", "raj", "SOC 2 Type II audit kickoff is September 29. I'm the point of contact for the auditors; evidence requests go through me.", key="soc2")
S("security", "2026-10-30 16:00", "raj", "Quarterly access review done: removed 23 stale accounts.")
S("security", "2026-11-09 10:00", "raj", "Phishing test results: 4% click rate, down from 11% in Q2.")

# --- a few Japanese messages in Slack
S("general", "2026-11-11 01:00", "sakura", "サポートチームより：年末年始のサポート当番表をNotionに掲載しました。")
S("general", "2026-10-09 02:00", "yuki", "大阪オフィスのWi-Fiが不安定です。総務に連絡済みです。")
S("general", "2026-09-18 03:00", "haruto", "モバイルチームの勉強会は毎週木曜17時からです。誰でも参加できます。")

# --- background chatter (fixed seed): standups, reviews, social; also keyword decoys
TASKS_EN = [
    "reviewing the invoice PDF renderer", "fixing flaky tests in billing-service", "pairing on the export API pagination",
    "writing docs for webhooks", "triaging support tickets", "updating the Helm charts", "profiling the search endpoint",
    "cleaning up feature flags", "working on the pricing page A/B test", "upgrading React Native", "reviewing PRs",
    "investigating slow dashboard queries", "tuning the Postgres connection pool", "preparing the customer webinar",
    "drafting the Q4 OKRs", "migrating cron jobs to Kubernetes", "refactoring the tax calculation module",
]
SOCIAL_EN = [
    "Lunch order for Thursday is open, vote in the thread.", "Who's up for the board game night on Friday?",
    "The coffee machine on floor 3 is fixed.", "Happy birthday {name}!", "Reminder to submit expenses before month end.",
    "Great demo today {name}, the invoice scanner looks amazing.", "Anyone have a spare HDMI adapter?",
    "Photos from the team offsite are in the shared album.", "Parking garage is closed on Saturday for maintenance.",
]
start = T("2026-07-01 00:00")
for i in range(150):
    day = start + dt.timedelta(days=rng.randrange(0, 142), hours=rng.choice([0, 1, 2, 8, 9, 15, 16, 17]), minutes=rng.randrange(60))
    who = rng.choice(list(P.keys()))
    if rng.random() < 0.55:
        ch = rng.choice(["eng-platform", "mobile", "general"])
        text = "Standup: yesterday %s, today %s. No blockers." % (rng.choice(TASKS_EN), rng.choice(TASKS_EN))
    else:
        ch = rng.choice(["general", "general", "sales"])
        text = rng.choice(SOCIAL_EN).format(name=P[rng.choice(list(P.keys()))][2].split()[0])
    S(ch, day.strftime("%Y-%m-%d %H:%M"), who, text)

# ---------------------------------------------------------------- rocketchat (Japanese-leaning)
ROOMS = [
    ("RCgeneral0001", "c", "general-ja", "全社連絡"),
    ("RCdevja000002", "c", "dev-ja", "開発チーム"),
    ("RCmobile00003", "c", "mobile-ja", "モバイル開発"),
    ("RCsupport0004", "c", "support-ja", "カスタマーサポート"),
    ("RCexecs000005", "p", "leadership", "経営チーム"),
    ("RCdm000000006", "d", None, None),
]
rc_msgs = []


def R(room, when, who, text, key=None, parent=None):
    rc_msgs.append(dict(room=room, time=T(when), user=who, text=text, key=key, parent=parent))


# --- cross-posts and translations of announcements
R("general-ja", "2026-10-01 09:05", "tom", "オフィス移転のお知らせ：東京チームは12月1日に渋谷の新オフィスへ移転します。新住所は渋谷スクランブルスクエア21階です。座席表はOffice Move FAQをご覧ください。", key="ann-office-ja")
R("general-ja", "2026-11-02 09:05", "tom", "年末年始休業のお知らせ：12月27日から1月4日まで休業します。サポートは当番制で対応します。", key="ann-holiday-ja")
R("general-ja", "2026-10-15 09:10", "raj", "セキュリティ連絡：契約社員を含む全アカウントで多要素認証（MFA）が必須になりました。11月1日以降、MFA未設定のアカウントはロックされます。")
R("general-ja", "2026-11-18 09:05", "aiko", "全社会議は11月26日17時（日本時間）です。テーマはQ4ロードマップと日本ローンチです。")
R("general-ja", "2026-09-01 09:10", "aiko", "渡辺健二さんが日本のカスタマーサクセス責任者として入社しました。日本展開をリードします。")

# --- mobile v3 release date: only in Japanese
R("mobile-ja", "2026-11-14 06:00", "haruto", "v3のリリースについて：App Store審査でオフラインモードの同期に問題が見つかったため、リリースを11月24日から12月8日に延期します。", key="mob-delay")
R("mobile-ja", "2026-11-14 06:20", "mei", "了解です。オンボーディング画面の最終版はそのまま使えますか？", parent="mob-delay")
R("mobile-ja", "2026-11-14 06:30", "haruto", "はい、デザインは変更なしです。修正は同期処理だけです。", parent="mob-delay")
R("mobile-ja", "2026-11-19 08:00", "haruto", "v3の修正版を審査に再提出しました。12月8日リリースの予定は変わりません。")
R("mobile-ja", "2026-10-23 07:00", "haruto", "v3ベータのクラッシュフリー率は99.2%です。主なクラッシュはAndroid 12のカメラ権限まわり。")
R("mobile-ja", "2026-11-06 07:00", "yuki", "請求書スキャナーのOCR精度は日本語の領収書で94%まで改善しました。")

# --- incident only in Japanese (fact exists only in the other language)
R("dev-ja", "2026-11-12 05:10", "yuki", "障害報告：11月12日 13:40〜14:25（日本時間）、大阪リージョンで請求書PDFの生成が遅延しました。原因はPDFワーカーのメモリ不足。ワーカー数を8から12に増やして解消済みです。", key="inc-osaka")
R("dev-ja", "2026-11-12 05:30", "ken", "対応ありがとうございます。ポストモーテムは不要、SEV3扱いで。", parent="inc-osaka")
R("dev-ja", "2026-10-08 02:00", "yuki", "Kubernetesのアップグレード（1.31）が全クラスタで完了しました。")
R("dev-ja", "2026-11-17 01:00", "yuki", "PostgreSQLへの移行が完了しました。MySQLは12月15日に廃止予定です。移行作業へのご協力ありがとうございました。")
R("dev-ja", "2026-09-24 03:00", "ken", "コードレビューのルール変更：本番に影響するPRは2人以上の承認が必要です。")
R("dev-ja", "2026-10-27 03:00", "yuki", "ステージング環境のデータベースを毎週日曜に本番の匿名化コピーで更新するようにしました。")

# --- support: conflicts with the wiki (SLA)
R("support-ja", "2026-10-10 01:00", "sakura", "サポート窓口の受付時間は平日9時〜18時（日本時間）です。土日祝は緊急の障害のみ対応します。")
R("support-ja", "2026-11-11 01:10", "sakura", "年末年始のサポート当番表をNotionに掲載しました。12月29日と1月2日は私が担当です。")
R("support-ja", "2026-11-16 02:00", "sakura", "適格請求書（インボイス制度）対応についての問い合わせが増えています。今月だけで27件です。")
R("support-ja", "2026-09-30 02:00", "kenji", "日本の顧客向けFAQを30件追加しました。問い合わせ件数が約15%減りました。")

# --- leadership (private): Japan expansion
R("leadership", "2026-10-06 00:30", "kenji", "日本展開の状況：大阪に営業拠点を開設する方向で検討中。採用は営業2名、サポート1名を予定。", key="jp-expand")
R("leadership", "2026-10-06 00:45", "tom", "予算は承認済み。オフィスはシェアオフィスで始めましょう。", parent="jp-expand")
R("leadership", "2026-11-13 00:30", "kenji", "大阪拠点は2027年1月に梅田のシェアオフィスで開設することに決定しました。")
R("leadership", "2026-11-19 00:30", "aiko", "日本向けの価格は1シートあたり月額6,800円で確定しました（税別）。")

# --- DM
R("RCdm000000006", "2026-11-18 03:00", "ken", "田中さん、来週の1on1を木曜に移動してもいいですか？")

TASKS_JA = [
    "請求書PDFのレイアウト修正", "テストの安定化", "エクスポートAPIのページング対応", "Webhookのドキュメント作成",
    "問い合わせチケットの振り分け", "Helmチャートの更新", "検索APIの性能調査", "機能フラグの整理",
    "React Nativeのアップグレード", "コードレビュー", "ダッシュボードのクエリ高速化", "税計算モジュールのリファクタリング",
    "適格請求書フォーマットの実装", "領収書OCRの改善", "オンボーディング画面の実装",
]
SOCIAL_JA = [
    "木曜のランチ注文を受け付けています。", "金曜のボードゲーム会、参加者募集中です！", "3階のコーヒーマシンが直りました。",
    "経費精算は月末までに提出してください。", "今日のデモすごく良かったです、お疲れさまでした。", "社員旅行の写真を共有アルバムに上げました。",
    "会議室Aのプロジェクターが壊れています。", "新しい社内Wikiの使い方について質問があればどうぞ。",
]
for i in range(125):
    day = start + dt.timedelta(days=rng.randrange(0, 142), hours=rng.choice([0, 1, 2, 3, 5, 8]), minutes=rng.randrange(60))
    who = rng.choice(["aiko", "ken", "yuki", "haruto", "sakura", "mei", "kenji"])
    if rng.random() < 0.6:
        room = rng.choice(["dev-ja", "mobile-ja", "support-ja"])
        text = "日報：昨日は%s、今日は%sを進めます。ブロッカーなし。" % (rng.choice(TASKS_JA), rng.choice(TASKS_JA))
    else:
        room = rng.choice(["general-ja", "general-ja", "support-ja"])
        text = rng.choice(SOCIAL_JA)
    R(room, day.strftime("%Y-%m-%d %H:%M"), who, text)

# ---------------------------------------------------------------- notion
pages = []


def N(title, parent, when, author, body, created=None, kind="page", props=None):
    pages.append(dict(title=title, parent=parent, edited=T(when), created=T(created or when), author=author,
                      body=body.strip() + "\n", kind=kind, props=props or {}))


N("Pricing Policy", "Company Wiki", "2026-09-20 10:00", "Aiko Tanaka", """
# Pricing Policy

## Plans
- **Starter**: free up to 3 seats.
- **Pro**: $49 per seat per month, billed monthly. Annual billing at the same price.
- **Enterprise**: custom pricing, minimum 50 seats.

## Discounts
Discounts above 20% need approval from the CFO. Non-profits get 30% off Pro.

## Changes
The Pro price changed from $39 to $49 on October 1, 2026 (decided September 15).
""", created="2026-03-02 10:00")

N("Pricing Committee 2026-10-20", "Meeting Notes", "2026-10-20 14:00", "Aiko Tanaka", """
# Pricing Committee — 2026-10-20

Attendees: Aiko Tanaka, Tom Becker, Maria Lopez, Emily Chen

## Context
Pro win rate fell from 31% to 22% after the move to $49. Two mid-market deals were lost on price.

## Decision
- The $49 Pro price is withdrawn.
- **Pro is $45 per seat per month** from November 1, 2026.
- Annual billing: 2 months free.
- Renewals move to $45 at their next renewal date.

## Action items
- Emily: update the pricing page before Nov 1.
- Maria: new price sheet in the Sales Playbook.
- Aiko: update the Pricing Policy wiki page.
""")

N("Sales Playbook", "Sales", "2026-10-21 09:00", "Maria Lopez", """
# Sales Playbook

## Price sheet (from Nov 1, 2026)
Pro: $45 per seat per month; annual billing gets 2 months free. Enterprise: custom, 50 seats minimum.

## Discount approvals
Up to 20%: sales lead. Above 20%: CFO (Tom Becker).

## Qualification
Use MEDDICC. A qualified opportunity has a named champion and a budget owner.
""", created="2026-02-10 09:00")

N("Engineering Onboarding Guide", "Engineering Wiki", "2026-09-12 08:00", "Ken Sato", """
# Engineering Onboarding Guide

Welcome! This is the starting point for new engineers.

## Week 1
- Get access: GitHub, AWS (via SSO), PagerDuty, Notion, Slack and RocketChat.
- Set up your laptop with the `acme-dev` script in the dev-setup repository.
- Read the Architecture Overview and the Incident Response runbook.

## Week 2
- Ship a small change to billing-service with your onboarding buddy.
- Shadow one on-call shift.

## Who to ask
Platform questions: Ken Sato. Mobile: Haruto Suzuki. Security and access: Raj Patel.
""", created="2026-01-15 08:00")

N("Incident Response", "Engineering Wiki", "2026-08-30 10:00", "David Kim", """
# Incident Response

## Severity levels
- **SEV1**: full outage or data loss for many customers. The on-call must acknowledge within **15 minutes**, 24/7.
- **SEV2**: major feature degraded. Acknowledge within 30 minutes during business hours.
- **SEV3**: minor issue, handled in normal work.

## Process
1. Page the on-call through PagerDuty.
2. Open a thread in #incidents.
3. Write a postmortem within 5 business days for SEV1 and SEV2.
""", created="2026-02-01 10:00")

N("Support Handbook", "Support", "2026-10-12 01:00", "Sakura Ito", """
# Support Handbook

## Response targets
- Critical (production down): first response within **30 minutes**, 24/7, and escalate to engineering as SEV1.
- High: within 4 business hours.
- Normal: within 1 business day.

## Hours
Weekdays 9:00–18:00 JST. Weekends and holidays: critical incidents only.
""", created="2026-04-01 01:00")

N("Security Policy", "Company Wiki", "2026-10-16 10:00", "Raj Patel", """
# Security Policy

## Accounts
- MFA is mandatory for every account, including contractors, from November 1, 2026.
- Passwords must be rotated every **90 days**.
- Shared accounts are not allowed.

## Laptops
Full-disk encryption and automatic screen lock after 5 minutes.

## Reporting
Report suspected phishing to security@acme.example or in #security.
""", created="2026-01-20 10:00")

N("情報セキュリティ規程", "社内規程", "2026-09-01 01:00", "伊藤 さくら", """
# 情報セキュリティ規程

## パスワード
- パスワードは **180日ごと** に変更すること。
- 同じパスワードを複数のサービスで使い回さないこと。

## 端末
- 業務用PCはディスク暗号化を有効にすること。
- 離席時は画面をロックすること。

## 報告
不審なメールは情報システム担当に報告すること。
""", created="2025-12-01 01:00")

N("経費精算規程", "社内規程", "2026-07-10 01:00", "トム・ベッカー", """
# 経費精算規程

## 申請期限
経費は発生した月の月末までに申請してください。翌月10日を過ぎた申請は受け付けません。

## 上限
- 出張の宿泊費：1泊15,000円まで（東京・大阪は18,000円まで）。
- 会食費：1人あたり5,000円まで。事前に上長の承認が必要です。

## 申請方法
領収書の写真を添付して、経費精算システムから申請してください。
""", created="2025-11-01 01:00")

N("Office Move FAQ", "Company Wiki", "2026-10-02 09:00", "Tom Becker", """
# Office Move FAQ

**When?** The Tokyo team moves to the new Shibuya office on December 1, 2026.

**Where?** Shibuya Scramble Square 21F.

**Desks?** Desks are assigned by team; the seating chart is attached. Movers pack on November 28.

**Osaka?** The Osaka team is not affected by this move.
""")

N("オフィス移転のお知らせ", "Company Wiki", "2026-10-02 09:30", "トム・ベッカー", """
# オフィス移転のお知らせ

東京チームは2026年12月1日に渋谷の新オフィス（渋谷スクランブルスクエア21階）へ移転します。
11月28日に引越し業者が梱包を行います。座席はチームごとに割り当てます。
大阪チームは今回の移転の対象外です。
""")

N("Public API Reference", "Engineering Wiki", "2026-08-20 10:00", "Yuki Yamamoto", """
# Public API Reference

## Authentication
Use a bearer token created in Settings → API tokens.

## Rate limits
The public API allows **1,000 requests per minute per token**. Exceeding it returns HTTP 429 with a Retry-After header.

## Pagination
List endpoints return at most 100 items; use the `cursor` parameter for the next page.

## Webhooks
Invoice events are delivered with at-least-once semantics and signed with HMAC-SHA256.
""", created="2026-03-05 10:00")

N("Architecture Overview", "Engineering Wiki", "2026-11-17 03:00", "Ken Sato", """
# Architecture Overview

## Services
- billing-service (Go): invoices, payments. Database: PostgreSQL 16 (migrated from MySQL in November 2026).
- export-service (Go): PDF and CSV exports.
- web (TypeScript/React) and mobile (React Native).

## Infrastructure
AWS, Kubernetes 1.31, Terraform. CI on GitHub Actions.
""", created="2026-01-10 03:00")

N("Postmortem: EU login outage 2026-11-05", "Engineering Wiki", "2026-11-06 10:00", "David Kim", """
# Postmortem: EU login outage (2026-11-05)

## Summary
From 06:31 to 07:22 UTC all EU customers could not log in. Duration: 51 minutes. SEV1.

## Root cause
The SAML signing certificate of the EU identity provider expired.

## Action items
- Alert 30 days before any certificate expires (owner: David Kim).
- Add the certificate inventory to the on-call checklist (owner: Ken Sato).
""")

N("SOC 2 Audit Plan", "Security", "2026-09-06 10:00", "Raj Patel", """
# SOC 2 Type II Audit Plan

Audit window: October 1, 2026 – March 31, 2027. Fieldwork kickoff: September 29.

Evidence is collected in the compliance drive. Control owners upload evidence by the 5th of each month.
""")

N("Japan Launch Plan", "Strategy", "2026-11-19 01:00", "Kenji Watanabe", """
# Japan Launch Plan

## Goals
- 40 paying Japanese customers by the end of Q1 2027.
- Japanese invoice format (qualified invoices, 適格請求書) supported by January.

## Pricing
Japan price: ¥6,800 per seat per month (tax excluded), decided November 19.

## Team
Osaka sales office opens in January 2027 in a shared office in Umeda. Hiring: 2 sales, 1 support.
""", created="2026-09-15 01:00")

N("2026-11-13 経営会議 議事録", "Meeting Notes", "2026-11-13 02:00", "渡辺 健二", """
# 経営会議 議事録（2026-11-13）

出席：田中、ベッカー、渡辺、佐藤

## 決定事項
- 大阪拠点は2027年1月に梅田のシェアオフィスで開設する。
- 日本向け価格案は11月19日までに確定する。

## 共有事項
- 適格請求書への対応は1月リリースを目標とする（担当：山本）。
""")

N("Weekly Platform Sync 2026-10-16", "Meeting Notes", "2026-10-16 09:00", "Ken Sato", """
# Weekly Platform Sync — 2026-10-16

- Postgres migration: cutover moved from Oct 18 to Nov 15 (payment provider freeze).
- Kubernetes 1.31 upgrade complete.
- Terraform state bucket migration next sprint (David).
""")

N("Mobile v3 Release Plan", "Product", "2026-10-01 10:00", "Haruto Suzuki", """
# Mobile v3 Release Plan

Target release: **November 24, 2026**.

Features: offline mode, invoice scanner with OCR, redesigned onboarding.

Rollout: staged, 10% → 50% → 100% over one week.
""")

N("Year-end Support Rotation", "Support", "2026-11-11 01:00", "Sakura Ito", """
# Year-end Support Rotation (Dec 27 – Jan 4)

| Date | On duty |
|---|---|
| Dec 27–28 | Kenji Watanabe |
| Dec 29 | Sakura Ito |
| Dec 30–31 | Yuki Yamamoto |
| Jan 1 | David Kim |
| Jan 2 | Sakura Ito |
| Jan 3–4 | Haruto Suzuki |
""")

N("Remote Work Policy", "Company Wiki", "2026-06-01 10:00", "Tom Becker", """
# Remote Work Policy

Everyone may work remotely up to 3 days a week. Core hours are 11:00–16:00 local time.
Equipment budget for home offices: $500 per year.
""")

N("Brand Guidelines", "Marketing", "2026-05-20 10:00", "Emily Chen", """
# Brand Guidelines

Primary color: Acme Blue (#1F4FFF). Font: Inter. Never stretch the logo.
""")

N("Data Retention Policy", "Company Wiki", "2026-08-01 10:00", "Raj Patel", """
# Data Retention Policy

Invoices are kept for 10 years (legal requirement). Application logs are kept for 90 days.
Backups are kept for 35 days and encrypted.
""")

N("デザインシステム", "Product", "2026-09-25 02:00", "中村 芽衣", """
# デザインシステム

コンポーネントはFigmaの「Acme DS」ライブラリで管理しています。
色・余白・タイポグラフィのトークンはWebとモバイルで共通です。
新しいコンポーネントを追加するときはデザインレビューを受けてください。
""")

N("Analytics Dashboard Guide", "Data", "2026-08-19 09:00", "Leo Garcia", """
# Analytics Dashboard Guide

Dashboards live in Metabase. The seat-usage dashboard shows seats per plan; the revenue dashboard shows MRR by plan.
Data refreshes nightly at 02:00 UTC.
""")

# Tasks database (rows): some stale
TASKS = [
    ("Migrate billing DB to PostgreSQL", "In progress", "Yuki Yamamoto", "2026-10-18", "2026-09-09 16:30", "Schema converted; dual writes in staging. Cutover planned for October 18."),
    ("Certificate expiry alerts", "In progress", "David Kim", "2026-11-30", "2026-11-07 09:00", "Alert 30 days before expiry for all TLS and SAML certificates."),
    ("Update pricing page to $45", "Done", "Emily Chen", "2026-10-31", "2026-10-28 11:00", "Pricing page shows $45 per seat for Pro."),
    ("Japanese qualified invoice format", "In progress", "Yuki Yamamoto", "2027-01-15", "2026-11-16 03:00", "適格請求書の登録番号と税率ごとの消費税額を請求書PDFに表示する。"),
    ("Mobile v3 release", "In progress", "Haruto Suzuki", "2026-11-24", "2026-10-22 10:00", "Offline mode and invoice scanner. Release on TestFlight first."),
    ("SOC 2 evidence collection", "In progress", "Raj Patel", "2027-03-31", "2026-10-05 10:00", "Monthly evidence upload by control owners."),
    ("Decommission MySQL", "Not started", "David Kim", "2026-12-15", "2026-11-16 08:30", "Turn off the read-only MySQL after the Postgres cutover."),
    ("Osaka office setup", "Not started", "Kenji Watanabe", "2027-01-10", "2026-11-13 03:00", "梅田のシェアオフィス契約と備品の手配。"),
    ("Webhook retries dashboard", "Done", "Leo Garcia", "2026-09-30", "2026-09-29 12:00", "Dashboard for webhook delivery retries."),
    ("Onboarding screens redesign", "Done", "Mei Nakamura", "2026-11-04", "2026-11-04 15:00", "Final designs in Figma."),
    ("Terraform state migration", "Done", "David Kim", "2026-11-03", "2026-11-03 09:15", "State moved to the new bucket."),
    ("Sales price sheet for Nov 1", "Done", "Maria Lopez", "2026-10-31", "2026-10-21 09:00", "Price sheet with $45 Pro in the Sales Playbook."),
    ("Access review Q4", "Done", "Raj Patel", "2026-10-31", "2026-10-30 16:00", "Removed 23 stale accounts."),
    ("Customer webinar: invoicing in Japan", "Not started", "Kenji Watanabe", "2026-12-10", "2026-11-10 16:00", "インボイス制度についての顧客向けウェビナー。"),
    ("Export API pagination", "In progress", "Yuki Yamamoto", "2026-12-05", "2026-11-02 04:00", "Cursor-based pagination for invoice exports."),
    ("Year-end support rotation", "Done", "Sakura Ito", "2026-11-15", "2026-11-11 01:00", "Rotation published in the Support space."),
    ("Phishing training Q4", "Done", "Raj Patel", "2026-11-09", "2026-11-09 10:00", "Click rate 4%."),
]
for title, status, assignee, due, edited, body in TASKS:
    N(title, "Tasks", edited, "Ken Sato", body, kind="database_row",
      props={"Status": status, "Assignee": assignee, "Due": due})

# ---------------------------------------------------------------- tools
def tool(name, desc, props, required=(), annotations=None):
    t = {"name": name, "description": desc,
         "inputSchema": {"type": "object", "properties": {k: {"type": ty, "description": d} for k, ty, d in props},
                         "required": list(required)}}
    if annotations:
        t["annotations"] = annotations
    return t


RO = {"readOnlyHint": True}
TOOLS = {
    "github": [
        tool("create_issue", "Create a new issue in a GitHub repository.", [("owner", "string", "Repository owner"), ("repo", "string", "Repository name"), ("title", "string", "Issue title"), ("body", "string", "Issue body in Markdown")], ["owner", "repo", "title"]),
        tool("list_issues", "List issues in a repository, filtered by state and labels.", [("owner", "string", "Repository owner"), ("repo", "string", "Repository name"), ("state", "string", "open, closed or all")], ["owner", "repo"], RO),
        tool("get_pull_request", "Get the details of a pull request.", [("owner", "string", "Repository owner"), ("repo", "string", "Repository name"), ("pull_number", "number", "Pull request number")], ["owner", "repo", "pull_number"], RO),
        tool("create_pull_request", "Open a new pull request from a branch.", [("owner", "string", "Repository owner"), ("repo", "string", "Repository name"), ("head", "string", "Branch with the changes"), ("base", "string", "Branch to merge into"), ("title", "string", "Title")], ["owner", "repo", "head", "base", "title"]),
        tool("merge_pull_request", "Merge a pull request.", [("owner", "string", "Repository owner"), ("repo", "string", "Repository name"), ("pull_number", "number", "Pull request number")], ["owner", "repo", "pull_number"], {"destructiveHint": True}),
        tool("search_code", "Search source code across repositories.", [("q", "string", "Search query")], ["q"], RO),
        tool("get_file_contents", "Read a file or directory listing from a repository.", [("owner", "string", "Repository owner"), ("repo", "string", "Repository name"), ("path", "string", "File path")], ["owner", "repo", "path"], RO),
        tool("list_workflow_runs", "List GitHub Actions workflow runs for a repository, to see whether CI builds passed.", [("owner", "string", "Repository owner"), ("repo", "string", "Repository name")], ["owner", "repo"], RO),
        tool("add_issue_comment", "Add a comment to an issue or pull request.", [("owner", "string", "Repository owner"), ("repo", "string", "Repository name"), ("issue_number", "number", "Issue number"), ("body", "string", "Comment")], ["owner", "repo", "issue_number", "body"]),
        tool("create_branch", "Create a new branch in a repository.", [("owner", "string", "Repository owner"), ("repo", "string", "Repository name"), ("branch", "string", "New branch name")], ["owner", "repo", "branch"]),
    ],
    "jira": [
        tool("create_ticket", "Create a Jira ticket (bug, task or story) in a project.", [("project", "string", "Project key"), ("summary", "string", "Summary"), ("type", "string", "Bug, Task or Story")], ["project", "summary"]),
        tool("search_tickets", "Search Jira tickets with JQL.", [("jql", "string", "JQL query")], ["jql"], RO),
        tool("transition_ticket", "Move a Jira ticket to another status (e.g. In Progress, Done).", [("key", "string", "Ticket key"), ("status", "string", "Target status")], ["key", "status"]),
        tool("get_ticket", "Get a Jira ticket with its comments.", [("key", "string", "Ticket key")], ["key"], RO),
        tool("assign_ticket", "Assign a Jira ticket to a person.", [("key", "string", "Ticket key"), ("assignee", "string", "User")], ["key", "assignee"]),
        tool("list_sprints", "List sprints of a Jira board with their dates.", [("board_id", "number", "Board id")], ["board_id"], RO),
        tool("log_work", "Log time spent on a Jira ticket.", [("key", "string", "Ticket key"), ("time_spent", "string", "e.g. 2h")], ["key", "time_spent"]),
    ],
    "gdrive": [
        tool("search_files", "Search Google Drive files by name or content.", [("query", "string", "Search text")], ["query"], RO),
        tool("read_file", "Read the text of a Google Doc, Sheet or file in Drive.", [("file_id", "string", "File id")], ["file_id"], RO),
        tool("upload_file", "Upload a file to a Google Drive folder.", [("folder_id", "string", "Folder"), ("name", "string", "File name"), ("content", "string", "Content")], ["name", "content"]),
        tool("share_file", "Share a Drive file with a person or group.", [("file_id", "string", "File id"), ("email", "string", "Who to share with"), ("role", "string", "reader, commenter or writer")], ["file_id", "email"]),
        tool("export_pdf", "Export a Google Doc as PDF.", [("file_id", "string", "File id")], ["file_id"], RO),
        tool("list_recent_files", "List files recently modified in Drive.", [("limit", "number", "How many")], [], RO),
    ],
    "pagerduty": [
        tool("trigger_incident", "Page the on-call engineer by triggering a PagerDuty incident on a service.", [("service", "string", "Service name"), ("title", "string", "What is wrong"), ("urgency", "string", "high or low")], ["service", "title"]),
        tool("list_oncalls", "Show who is on call now for each escalation policy.", [("schedule", "string", "Schedule name")], [], RO),
        tool("acknowledge_incident", "Acknowledge a PagerDuty incident.", [("incident_id", "string", "Incident id")], ["incident_id"]),
        tool("resolve_incident", "Resolve a PagerDuty incident.", [("incident_id", "string", "Incident id")], ["incident_id"]),
        tool("list_incidents", "List recent PagerDuty incidents with their status.", [("since", "string", "ISO date")], [], RO),
    ],
    "calendar": [
        tool("create_event", "Schedule a meeting in Google Calendar and invite people.", [("title", "string", "Title"), ("start", "string", "Start time"), ("end", "string", "End time"), ("attendees", "array", "Emails")], ["title", "start", "end"]),
        tool("find_free_time", "Find a time slot when all attendees are free.", [("attendees", "array", "Emails"), ("duration_minutes", "number", "Length")], ["attendees"], RO),
        tool("list_events", "List calendar events in a date range.", [("from", "string", "Start date"), ("to", "string", "End date")], [], RO),
        tool("delete_event", "Cancel a calendar event.", [("event_id", "string", "Event id")], ["event_id"], {"destructiveHint": True}),
    ],
    "expenses": [
        tool("submit_expense", "Submit an expense claim with a receipt image. 経費精算を申請する。", [("amount", "number", "Amount"), ("currency", "string", "JPY or USD"), ("receipt", "string", "Receipt image URL")], ["amount", "receipt"]),
        tool("list_expenses", "List your expense claims and their approval status.", [("status", "string", "pending, approved or paid")], [], RO),
        tool("approve_expense", "Approve an expense claim as a manager.", [("expense_id", "string", "Claim id")], ["expense_id"]),
    ],
}


# ---------------------------------------------------------------- writers
def reset(d):
    p = os.path.join(ROOT, d)
    if os.path.isdir(p):
        shutil.rmtree(p)
    os.makedirs(p)
    return p


def dump(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=1)
        f.write("\n")


def write_slack():
    d = reset("slack")
    dump(os.path.join(d, "users.json"), [
        {"id": u, "name": n, "real_name": en, "profile": {"real_name": en, "display_name": n.split(".")[0]}}
        for u, n, en, ja, rc in PEOPLE])
    dump(os.path.join(d, "channels.json"), [
        {"id": cid, "name": name, "created": 1767225600, "purpose": {"value": purpose}} for cid, name, purpose in CHANNELS])
    used = set()
    keyed = {}
    for m in sorted(slack_msgs, key=lambda m: m["time"]):
        sec = int(m["time"].timestamp())
        micro = int(hexid(m["text"])[:5], 16) % 1000000
        ts = "%d.%06d" % (sec, micro)
        while ts in used:
            micro = (micro + 1) % 1000000
            ts = "%d.%06d" % (sec, micro)
        used.add(ts)
        m["ts"] = ts
        if m["key"]:
            keyed[m["key"]] = m
    by_file = {}
    for m in slack_msgs:
        msg = {"type": "message", "user": uid(m["user"]), "text": m["text"], "ts": m["ts"],
               "user_profile": {"real_name": P[m["user"]][2]}}
        if m["parent"]:
            parent = keyed[m["parent"]]
            msg["thread_ts"] = parent["ts"]
            parent.setdefault("replies", 0)
            parent["replies"] += 1
        by_file.setdefault((m["channel"], m["time"].strftime("%Y-%m-%d")), []).append((m, msg))
    for (ch, day), items in sorted(by_file.items()):
        out = []
        for m, msg in sorted(items, key=lambda x: x[1]["ts"]):
            if m.get("replies"):
                msg["thread_ts"] = msg["ts"]
                msg["reply_count"] = m["replies"]
            out.append(msg)
        dump(os.path.join(d, ch, day + ".json"), out)
    return keyed


def write_rocketchat():
    d = reset("rocketchat")
    rooms = []
    for rid, t, name, fname in ROOMS:
        r = {"_id": rid, "t": t}
        if name:
            r["name"] = name
        if fname:
            r["fname"] = fname
        rooms.append(r)
    dump(os.path.join(d, "rooms.json"), {"update": rooms, "success": True})
    dump(os.path.join(d, "users.json"), {"users": [{"_id": "rc-" + rc, "username": rc, "name": ja} for u, n, en, ja, rc in PEOPLE], "success": True})
    rid_of = {name: rid for rid, t, name, fname in ROOMS if name}
    rid_of["RCdm000000006"] = "RCdm000000006"
    keyed = {}
    for m in sorted(rc_msgs, key=lambda m: m["time"]):
        m["_id"] = rcid(m["room"], m["text"], m["time"].isoformat())
        if m["key"]:
            keyed[m["key"]] = m
    per_room = {}
    for m in rc_msgs:
        who = P[m["user"]]
        msg = {"_id": m["_id"], "rid": rid_of[m["room"]], "msg": m["text"],
               "ts": m["time"].strftime("%Y-%m-%dT%H:%M:%S.000Z"),
               "u": {"_id": "rc-" + who[4], "username": who[4], "name": who[3]}}
        if m["parent"]:
            msg["tmid"] = keyed[m["parent"]]["_id"]
            keyed[m["parent"]]["tcount"] = keyed[m["parent"]].get("tcount", 0) + 1
        per_room.setdefault(msg["rid"], []).append((m, msg))
    for rid, items in sorted(per_room.items()):
        out = []
        for m, msg in sorted(items, key=lambda x: x[1]["ts"]):
            if m.get("tcount"):
                msg["tcount"] = m["tcount"]
            out.append(msg)
        dump(os.path.join(d, "messages", rid + ".json"), {"messages": out, "success": True})
    return keyed


def write_notion():
    d = reset("notion")
    ids = {}
    for p in pages:
        pid = hexid("notion", p["title"])
        ids[p["title"]] = pid
        fm = ["---", "id: %s" % pid, "title: %s" % json.dumps(p["title"], ensure_ascii=False),
              "created_time: %s" % p["created"].strftime("%Y-%m-%dT%H:%M:%SZ"),
              "last_edited_time: %s" % p["edited"].strftime("%Y-%m-%dT%H:%M:%SZ"),
              "created_by: %s" % json.dumps(p["author"], ensure_ascii=False),
              "parent: %s" % json.dumps(p["parent"], ensure_ascii=False),
              "url: https://www.notion.so/acme/%s" % pid]
        if p["kind"] != "page":
            fm.append("type: %s" % p["kind"])
        if p["props"]:
            fm.append("properties:")
            for k, v in p["props"].items():
                fm.append("  %s: %s" % (k, json.dumps(v, ensure_ascii=False)))
        fm.append("---")
        safe = "".join(c if c.isalnum() or c in " -" else " " for c in p["title"]).strip()
        with open(os.path.join(d, "%s %s.md" % (safe, pid)), "w", encoding="utf-8") as f:
            f.write("\n".join(fm) + "\n" + p["body"])
    return ids


def write_tools():
    d = reset("tools")
    for server, tools in TOOLS.items():
        dump(os.path.join(d, server + ".json"), {"tools": tools})


def main():
    sk = write_slack()
    rk = write_rocketchat()
    nk = write_notion()
    write_tools()
    # An index of the storyline items' ids, for writing golden questions.
    idx = {"slack": {k: "slack:%s/%s" % (m["channel"], m["ts"]) for k, m in sk.items()},
           "rocketchat": {k: "rocketchat:%s" % m["_id"] for k, m in rk.items()},
           "notion": {t: "notion:%s" % i for t, i in nk.items()}}
    with open(os.path.join(ROOT, "ids.json"), "w", encoding="utf-8") as f:
        json.dump(idx, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    n_tools = sum(len(t) for t in TOOLS.values())
    texts = [m["text"] for m in slack_msgs] + [m["text"] for m in rc_msgs] + [p["body"] for p in pages]
    ja = sum(1 for t in texts if sum(1 for c in t if ord(c) > 0x3000) * 3 >= len(t.replace(" ", "")))
    print("slack %d, rocketchat %d, notion %d, tools %d: %d items; %d of %d texts Japanese" % (
        len(slack_msgs), len(rc_msgs), len(pages), n_tools,
        len(slack_msgs) + len(rc_msgs) + len(pages) + n_tools, ja, len(texts)))


if __name__ == "__main__":
    main()
