async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(313);

  brush.noStroke();
  brush.fill("#fbeedd", 60);
  brush.fillBleed(0.3);
  brush.rect(0, 0, 600, 600);
  brush.set("charcoal", "#5a3d2b", 3);
  brush.line(300, 580, 300, 300);
  brush.line(300, 400, 220, 300);
  brush.line(300, 380, 390, 290);
  brush.noStroke();
  const pal = ["#d1495b", "#edae49", "#e76f51", "#c4603f", "#f2cc8f"];
  for (let i = 0; i < 14; i++) {
    brush.fill(random(pal), 90);
    brush.fillBleed(0.35);
    brush.fillTexture(0.6, 0.6);
    brush.circle(300 + random(-150, 150), 250 + random(-110, 70), random(40, 70), 0.6);
  }
  for (let i = 0; i < 10; i++) {
    brush.fill(random(pal), 110);
    brush.circle(random(120, 480), random(530, 580), random(6, 12), 0.5);
  }
}
