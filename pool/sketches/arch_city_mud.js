async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(130);

  brush.noStroke();
  brush.fillBleed(0);
  brush.fillTexture(0.1, 1);
  for (let i = 0; i < 30; i++) {
    brush.fill(random(["#4a4338", "#565046", "#3b3b33", "#6b5e4e", "#504a3d"]), 240);
    const w = random(40, 120), h = random(100, 400);
    brush.rect(random(-20, 560), 600 - h, w, h);
  }
  brush.hatchStyle("charcoal", "#2a261f", 2);
  brush.hatch(4, 45, {rand: 0.4});
  brush.rect(0, 0, 600, 250);
  brush.noHatch();
}
