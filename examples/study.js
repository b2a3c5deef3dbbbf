// An abstract study that touches most of p5.brush: fields, custom brushes, hatching, massing,
// clipping, washes and every primitive.
async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.2);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#f8f4e3");
  brush.seed("study");
  brush.noiseSeed(3);

  // a custom flow field and a custom brush tip
  brush.addField("swirl", (t, field) => {
    for (let c = 0; c < field.length; c++)
      for (let r = 0; r < field[c].length; r++) field[c][r] = (c * 3 + r * 2 + t * 10) % 360;
    return field;
  });
  brush.add("dots", { type: "custom", weight: 8, scatter: 1, opacity: 120, spacing: 2, pressure: [1, 1],
    tip: (g) => { g.fill(0); g.circle(-20, 0, 30); g.circle(20, 0, 30); } });
  brush.add("soft", { type: "spray", weight: 4, scatter: 2, opacity: 60, spacing: 1, grain: 1, pressure: [1.2, 0.6] });

  // washed blocks, clipped to the left half
  brush.clip([0, 0, 300, 600]);
  brush.noStroke();
  brush.wash("#e0e1dd", 120);
  brush.rect(40, 40, 220, 220);
  brush.noWash();
  brush.fill("#457b9d", 110);
  brush.fillBleed(0.3, "out", 45);
  brush.fillTexture(0.7, 0.6, true);
  brush.rect(150, 150, 200, 120, "center");
  brush.noClip();

  // hatched polygon and hatch arrays
  brush.noFill();
  brush.hatch(6, 30, { rand: 0.1, continuous: true, gradient: 0.3 });
  brush.hatchStyle("2H", "#1d3557", 1);
  brush.polygon([[340, 60], [560, 90], [520, 250], [360, 220]]);
  brush.noHatch();
  brush.hatch(4, 120);
  brush.hatchStyle("pen", "#e63946", 0.8);
  // hatchArray and massArray take brush.Polygon objects (p5.brush throws on plain point lists there)
  brush.hatchArray([new brush.Polygon([[380, 300], [460, 300], [420, 380]]),
    new brush.Polygon([[480, 300], [560, 320], [520, 400]])]);
  brush.noHatch();

  // mass under a circle and a triangle (massArray needs a mass set, as in p5.brush)
  brush.mass("charcoal", "#6d6875", { precision: 2, strength: 1, outline: true });
  brush.circle(150, 420, 60, 0.4);
  brush.massArray([new brush.Polygon([[240, 500], [300, 470], [330, 560]])]);
  brush.noMass();

  // strokes through the field
  brush.field("swirl");
  brush.refreshField(1);
  brush.set("dots", "#2a9d8f", 1);
  for (let i = 0; i < 6; i++) brush.flowLine(330 + i * 40, 430, 120, 90);
  brush.noField();
  brush.wiggle(0.5);
  brush.pick("soft");
  brush.stroke("#bc4749");
  brush.strokeWeight(2);
  brush.spline([[320, 560], [400, 520], [480, 580], [560, 540]], 0.6);
  brush.noField();
  brush.set("rotring", "#264653", 1);
  brush.arc(450, 150, 40, 0, 270);
  brush.beginStroke("segments", 60, 300);
  brush.move(0, 80, 1);
  brush.move(-60, 60, 0.8);
  brush.move(60, 60, 0.6);
  brush.endStroke(0, 0.4);
  brush.line(40, 580, 280, 580);
  brush.noStroke();

  // a curved closed shape to finish
  brush.fill("#f4a261", 90);
  brush.fillBleed(0.2, "in");
  brush.beginShape(0.8);
  brush.vertex(420, 440, 1);
  brush.vertex(500, 420, 1.2);
  brush.vertex(520, 500, 0.8);
  brush.vertex(440, 520, 1);
  brush.endShape(true);
  brush.noFill();
  brush.scaleBrushes(1);
}
