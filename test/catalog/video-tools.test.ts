import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../support/run-tool.ts';
import { rejectsField } from '../support/assertions.ts';
import type { AnyTool } from '../../src/core/define-tool.ts';
import { videoRpmCalculator } from '../../src/catalog/video-tools/video-rpm-calculator.ts';
import { cpmRpmCalculator } from '../../src/catalog/video-tools/cpm-rpm-calculator.ts';
import { engagementRateCalculator } from '../../src/catalog/video-tools/engagement-rate-calculator.ts';
import { videoIdParser } from '../../src/catalog/video-tools/video-id-parser.ts';
import { thumbnailUrls } from '../../src/catalog/video-tools/thumbnail-urls.ts';
import { earningsProjection } from '../../src/catalog/video-tools/earnings-projection.ts';
import { watchTimeCalculator } from '../../src/catalog/video-tools/watch-time-calculator.ts';

const ALL: AnyTool[] = [
  videoRpmCalculator,
  cpmRpmCalculator,
  engagementRateCalculator,
  videoIdParser,
  thumbnailUrls,
  earningsProjection,
  watchTimeCalculator,
];

async function result(tool: AnyTool, input: unknown): Promise<unknown> {
  return (await runTool(tool, input)).result;
}

const ID = 'dQw4w9WgXcQ';

describe('video-tools family', () => {
  it('has at least 6 tools, 1 credit each, under /api/v1/video-tools, with no platform name in titles or descriptions', () => {
    assert.ok(ALL.length >= 6);
    for (const tool of ALL) {
      assert.equal(tool.family, 'video-tools');
      assert.equal(tool.credits, 1);
      assert.equal(tool.path, `/api/v1/video-tools/${tool.slug}`);
      assert.ok(tool.examples.length >= 1, tool.slug);
      assert.ok(tool.aliases.length >= 1, tool.slug);
      const text = [tool.slug, tool.title, tool.description, ...tool.aliases].join(' ').toLowerCase();
      assert.doesNotMatch(text, /youtu\.?be|tiktok|vimeo|twitch/, tool.slug);
    }
  });

  it('every example output is exactly what the tool returns', async () => {
    for (const tool of ALL) {
      for (const ex of tool.examples) {
        assert.deepEqual(await result(tool, ex.input), ex.output, `${tool.slug}: ${ex.title}`);
      }
    }
  });
});

describe('video-rpm-calculator', () => {
  it('1,234,567 views at RPM 2.37 = 1234.567 × 2.37 = 2925.92379 → 2925.92', async () => {
    assert.deepEqual(await result(videoRpmCalculator, { views: 1234567, rpm: 2.37 }), {
      estimatedEarnings: 2925.92,
      earningsPerView: 0.00237,
      earningsPerMillionViews: 2370,
    });
  });

  it('RPM 0 and 0 views earn nothing', async () => {
    assert.deepEqual(await result(videoRpmCalculator, { views: 1000, rpm: 0 }), {
      estimatedEarnings: 0, earningsPerView: 0, earningsPerMillionViews: 0,
    });
    const r = (await result(videoRpmCalculator, { views: 0, rpm: 5 })) as { estimatedEarnings: number };
    assert.equal(r.estimatedEarnings, 0);
  });

  it('rejects fractional views, negative RPM and strings', async () => {
    await rejectsField(videoRpmCalculator, { views: 1.5, rpm: 1 }, 'views');
    await rejectsField(videoRpmCalculator, { views: 10, rpm: -1 }, 'rpm');
    await rejectsField(videoRpmCalculator, { views: '10', rpm: 1 }, 'views');
  });
});

describe('cpm-rpm-calculator', () => {
  it('CPM 10 at 55% → RPM 5.50; 100,000 views → 550', async () => {
    assert.deepEqual(await result(cpmRpmCalculator, { value: 10, views: 100000 }), { cpm: 10, rpm: 5.5, estimatedEarnings: 550 });
  });

  it('CPM 12 at 55% with 50% monetized views → 12 × 0.55 × 0.5 = 3.30', async () => {
    assert.deepEqual(await result(cpmRpmCalculator, { value: 12, monetizedPlaybackPercent: 50 }), {
      cpm: 12, rpm: 3.3, estimatedEarnings: null,
    });
  });

  it('RPM 3 back to CPM with 60% monetized: 3 / (0.55 × 0.6) = 9.0909 → 9.09', async () => {
    assert.deepEqual(await result(cpmRpmCalculator, { mode: 'rpm-to-cpm', value: 3, monetizedPlaybackPercent: 60 }), {
      cpm: 9.09, rpm: 3, estimatedEarnings: null,
    });
  });

  it('rejects a zero share and an unknown mode', async () => {
    await rejectsField(cpmRpmCalculator, { value: 3, creatorSharePercent: 0 }, 'creatorSharePercent');
    await rejectsField(cpmRpmCalculator, { mode: 'cpc', value: 3 }, 'mode', ['cpm-to-rpm', 'rpm-to-cpm']);
  });
});

describe('engagement-rate-calculator', () => {
  it('3 engagements over 7 views = 42.857% → 42.86', async () => {
    assert.deepEqual(await result(engagementRateCalculator, { views: 7, likes: 1, comments: 1, shares: 1 }), {
      engagements: 3,
      engagementRatePercent: 42.86,
      likeRatePercent: 14.29,
      commentRatePercent: 14.29,
      shareRatePercent: 14.29,
      viewsPerEngagement: 2.33,
    });
  });

  it('no engagements: 0% and no views-per-engagement', async () => {
    assert.deepEqual(await result(engagementRateCalculator, { views: 500 }), {
      engagements: 0,
      engagementRatePercent: 0,
      likeRatePercent: 0,
      commentRatePercent: 0,
      shareRatePercent: 0,
      viewsPerEngagement: null,
    });
  });

  it('rejects zero views and negative likes', async () => {
    await rejectsField(engagementRateCalculator, { views: 0, likes: 1 }, 'views');
    await rejectsField(engagementRateCalculator, { views: 10, likes: -1 }, 'likes');
  });
});

describe('video-id-parser', () => {
  const cases: [string, string, string, number | null][] = [
    [ID, ID, 'id', null],
    [`https://www.youtube.com/watch?v=${ID}`, ID, 'watch', null],
    [`https://m.youtube.com/watch?feature=share&v=${ID}`, ID, 'watch', null],
    [`http://youtube.com/watch?v=${ID}&list=PL123&index=2`, ID, 'watch', null],
    [`https://music.youtube.com/watch?v=${ID}&t=1h2m3s`, ID, 'watch', 3723],
    [`https://youtu.be/${ID}?si=abcDEF&t=42`, ID, 'short-link', 42],
    [`  youtu.be/${ID}  `, ID, 'short-link', null],
    [`https://www.youtube.com/shorts/${ID}`, ID, 'shorts', null],
    [`youtube.com/shorts/${ID}/?feature=share`, ID, 'shorts', null],
    [`https://www.youtube.com/embed/${ID}?start=10`, ID, 'embed', 10],
    [`https://www.youtube-nocookie.com/embed/${ID}`, ID, 'embed', null],
    [`https://www.youtube.com/v/${ID}`, ID, 'embed', null],
    [`https://www.youtube.com/live/${ID}?feature=share`, ID, 'live', null],
    ['https://youtu.be/a_b-c_d-e_0', 'a_b-c_d-e_0', 'short-link', null],
  ];
  for (const [url, videoId, format, startSeconds] of cases) {
    it(`parses ${url.trim()}`, async () => {
      assert.deepEqual(await result(videoIdParser, { url }), {
        videoId,
        format,
        startSeconds,
        watchUrl: `https://www.youtube.com/watch?v=${videoId}`,
        shortUrl: `https://youtu.be/${videoId}`,
        embedUrl: `https://www.youtube.com/embed/${videoId}`,
      });
    });
  }

  const bad = [
    '',
    'dQw4w9WgXc', // 10 characters
    'dQw4w9WgXcQQ', // 12 characters
    'dQw4w9WgX!Q',
    'https://www.youtube.com/watch?v=short',
    'https://www.youtube.com/watch?list=PL123',
    'https://www.youtube.com/channel/UC1234567890',
    'https://www.youtube.com/',
    `https://example.com/watch?v=${ID}`,
    `https://youtube.com.evil.example/watch?v=${ID}`,
    'https://vimeo.com/123456789',
    `ftp://youtu.be/${ID}`,
    `https://youtu.be/${ID}/extra`,
    `https://www.youtube.com/shorts/${ID}/more`,
    'not a url at all',
  ];
  for (const url of bad) {
    it(`rejects ${JSON.stringify(url)} naming url`, async () => {
      await rejectsField(videoIdParser, { url }, 'url');
    });
  }

  it('rejects a missing url and a non-string', async () => {
    await rejectsField(videoIdParser, {}, 'url');
    await rejectsField(videoIdParser, { url: 12345678901 }, 'url');
  });
});

describe('thumbnail-urls', () => {
  it('lists the five sizes, smallest first, for an id or any URL shape', async () => {
    const expected = {
      videoId: ID,
      thumbnails: [
        { size: 'default', width: 120, height: 90, url: `https://img.youtube.com/vi/${ID}/default.jpg` },
        { size: 'mqdefault', width: 320, height: 180, url: `https://img.youtube.com/vi/${ID}/mqdefault.jpg` },
        { size: 'hqdefault', width: 480, height: 360, url: `https://img.youtube.com/vi/${ID}/hqdefault.jpg` },
        { size: 'sddefault', width: 640, height: 480, url: `https://img.youtube.com/vi/${ID}/sddefault.jpg` },
        { size: 'maxresdefault', width: 1280, height: 720, url: `https://img.youtube.com/vi/${ID}/maxresdefault.jpg` },
      ],
    };
    assert.deepEqual(await result(thumbnailUrls, { url: ID }), expected);
    assert.deepEqual(await result(thumbnailUrls, { url: `https://www.youtube.com/shorts/${ID}` }), expected);
  });

  it('rejects something that is not a video reference, naming url', async () => {
    await rejectsField(thumbnailUrls, { url: 'https://example.com/image.jpg' }, 'url');
  });
});

describe('earnings-projection', () => {
  it('no growth: 500/day × 30 = 15,000 views a month at RPM 2 = 30 a month', async () => {
    assert.deepEqual(await result(earningsProjection, { dailyViews: 500, rpm: 2, months: 2 }), {
      months: [
        { month: 1, dailyViews: 500, views: 15000, earnings: 30, cumulativeEarnings: 30 },
        { month: 2, dailyViews: 500, views: 15000, earnings: 30, cumulativeEarnings: 60 },
      ],
      totalViews: 30000,
      totalEarnings: 60,
      averageMonthlyEarnings: 30,
    });
  });

  it('decline: −50% a month halves the views (30,000 → 15,000 → 7,500) at RPM 1', async () => {
    assert.deepEqual(await result(earningsProjection, { dailyViews: 1000, rpm: 1, monthlyGrowthPercent: -50, months: 3 }), {
      months: [
        { month: 1, dailyViews: 1000, views: 30000, earnings: 30, cumulativeEarnings: 30 },
        { month: 2, dailyViews: 500, views: 15000, earnings: 15, cumulativeEarnings: 45 },
        { month: 3, dailyViews: 250, views: 7500, earnings: 7.5, cumulativeEarnings: 52.5 },
      ],
      totalViews: 52500,
      totalEarnings: 52.5,
      averageMonthlyEarnings: 17.5,
    });
  });

  it('rounds views per month: 333.33/day × 30 = 9,999.9 → 10,000 views', async () => {
    const r = (await result(earningsProjection, { dailyViews: 333.33, rpm: 1.5, months: 1 })) as {
      months: { views: number; earnings: number }[];
    };
    assert.equal(r.months[0]?.views, 10000);
    assert.equal(r.months[0]?.earnings, 15);
  });

  it('rejects 0 months, 121 months and growth below −100%', async () => {
    await rejectsField(earningsProjection, { dailyViews: 1, rpm: 1, months: 0 }, 'months');
    await rejectsField(earningsProjection, { dailyViews: 1, rpm: 1, months: 121 }, 'months');
    await rejectsField(earningsProjection, { dailyViews: 1, rpm: 1, months: 1, monthlyGrowthPercent: -101 }, 'monthlyGrowthPercent');
  });
});

describe('watch-time-calculator', () => {
  it('1,000 views × 95 s = 95,000 s = 1,583.33 min = 26.39 h', async () => {
    assert.deepEqual(await result(watchTimeCalculator, { views: 1000, averageViewDurationSeconds: 95 }), {
      watchTimeMinutes: 1583.33,
      watchTimeHours: 26.39,
      averagePercentageViewed: null,
    });
  });

  it('average percentage viewed: 270 s of 600 s = 45%', async () => {
    const r = (await result(watchTimeCalculator, { views: 1, averageViewDurationSeconds: 270, videoLengthSeconds: 600 })) as Record<string, unknown>;
    assert.equal(r['averagePercentageViewed'], 45);
  });

  it('rejects an average longer than the video', async () => {
    await rejectsField(watchTimeCalculator, { views: 1, averageViewDurationSeconds: 700, videoLengthSeconds: 600 }, 'averageViewDurationSeconds');
  });
});
